# Bug: after a restart catch_up always hands back the window that has just closed, even when the
# last run already covered it, so a window that is done is run again.
# ruff: noqa: F821, E501, B905 (the other names come from the notebook's setup cells)
# notebook: 07_safe_scheduler
# loses: test_proofs
# %% new:answer_proofs
def catch_up(db: sqlite3.Connection, job: str, last_end: datetime, now: datetime,
             period_minutes: int = 60) -> dict:
    """After a restart: {"run": the window to run now or None, "gaps": the missed windows}."""
    if window_for(last_end, period_minutes)[1] != last_end:
        raise ValueError(f"last_end {last_end} is not the end of a {period_minutes}-minute window")
    run = window_for(now, period_minutes)
    period = timedelta(minutes=period_minutes)
    gaps, start = [], last_end.astimezone(UTC)
    while start + period <= run[0]:
        gaps.append((start, start + period))
        start += period
    for gap in gaps:
        with transaction(db):
            db.execute("INSERT OR IGNORE INTO gaps (job, window_start, window_end, noted_at) "
                       "VALUES (?, ?, ?, ?)", (job, *map(utc_text, gap), utc_text(now)))
    return {"run": run, "gaps": gaps}
