# Bug: after downtime catch_up replays the missed windows one by one with today's data instead of
# logging them as gaps.
# ruff: noqa: F821, E501, B905 (the other names come from the notebook's setup cells)
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
    while start < due_start:
        gaps.append((start, start + period))
        start += period
    if gaps:  # resume where we left off: run the oldest missed window first
        return {"run": gaps[0], "gaps": []}
    return {"run": (due_start, due_end), "gaps": []}
