# Bug: finish_run sets the state and the error but not updated_at, so a finished run's row still
# says it last changed when it was started or recovered.
# ruff: noqa: F821, E501, B905 (the other names come from the notebook's setup cells)
# notebook: 07_safe_scheduler
# loses: test_runs_table
# %% new:answer_runs_table
def finish_run(db: sqlite3.Connection, run_key: str, attempt: int, state: str, now: datetime,
               error: str | None = None) -> bool:
    """Mark the run SUCCEEDED or FAILED if `attempt` still holds it; True when it did."""
    if state not in ("SUCCEEDED", "FAILED"):
        raise ValueError(f"a run finishes as SUCCEEDED or FAILED, not {state!r}")
    with transaction(db):
        changed = db.execute(
            "UPDATE runs SET state = ?, error = ? "
            "WHERE run_key = ? AND attempt = ? AND state = 'RUNNING'",
            (state, error, run_key, attempt)).rowcount
        if changed:
            db.execute("UPDATE attempts SET outcome = ? WHERE run_key = ? AND attempt = ?",
                       (state, run_key, attempt))
    return changed == 1
