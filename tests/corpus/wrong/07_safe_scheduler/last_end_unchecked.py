# Bug: catch_up takes last_end as it comes: one off the window boundary logs half-hour gaps, and
# one without a time zone fails with TypeError when it is compared, instead of ValueError.
# ruff: noqa: F821, E501, B905 (the other names come from the notebook's setup cells)
# notebook: 07_safe_scheduler
# loses: test_proofs
# %% new:answer_proofs
def catch_up(db: sqlite3.Connection, job: str, last_end: datetime, now: datetime,
             period_minutes: int = 60) -> dict:
    """After a restart: {"run": the window to run now or None, "gaps": the missed windows}."""
    run_start, run_end = window_for(now, period_minutes)
    if run_end <= last_end:
        return {"run": None, "gaps": []}
    period = timedelta(minutes=period_minutes)
    first = last_end.astimezone(UTC)
    missed = int((run_start - first) / period)
    gaps = [(first + i * period, first + (i + 1) * period) for i in range(missed)]
    with transaction(db):
        db.executemany("INSERT OR IGNORE INTO gaps VALUES (?, ?, ?, ?)",
                       [(job, utc_text(start), utc_text(end), utc_text(now)) for start, end in gaps])
    return {"run": (run_start, run_end), "gaps": gaps}
