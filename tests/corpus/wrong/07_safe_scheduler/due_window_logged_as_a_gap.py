# Bug: catch_up's loop runs while start <= due_start, so the window it is about to run is
# logged as a gap too, even when nothing was missed.
# ruff: noqa: F821, E501 (the other names come from the notebook's setup cells)
# notebook: 07_safe_scheduler
# loses: test_proofs
# %% new:answer_proofs
def catch_up(db: sqlite3.Connection, job: str, last_end: datetime, now: datetime,
             period_minutes: int = 60) -> dict:
    """After a restart: {"run": the window to run now or None, "gaps": the missed windows}."""
    due_start, due_end = window_for(now, period_minutes)
    if window_for(last_end, period_minutes)[1] != last_end:
        raise ValueError(f"last_end {last_end} is not the end of a {period_minutes}-minute window")
    if due_end <= last_end:
        return {"run": None, "gaps": []}
    period = timedelta(minutes=period_minutes)
    gaps = []
    start = last_end.astimezone(UTC)
    while start <= due_start:
        gaps.append((start, start + period))
        start += period
    with transaction(db):  # a gap is written down, never filled with a made-up observation
        for gap_start, gap_end in gaps:
            db.execute("INSERT OR IGNORE INTO gaps VALUES (?, ?, ?, ?)",
                       (job, utc_text(gap_start), utc_text(gap_end), utc_text(now)))
    return {"run": (due_start, due_end), "gaps": gaps}
