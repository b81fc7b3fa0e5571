# Bug: finish_run leaves checking the state to the table's CHECK constraint, so a state other than
# SUCCEEDED or FAILED raises sqlite3.IntegrityError instead of ValueError.
# ruff: noqa: F821, E501, B905 (the other names come from the notebook's setup cells)
# notebook: 07_safe_scheduler
# loses: test_runs_table
# %% new:answer_runs_table
def finish_run(db: sqlite3.Connection, run_key: str, attempt: int, state: str, now: datetime,
               error: str | None = None) -> bool:
    """Mark the run SUCCEEDED or FAILED if `attempt` still holds it; True when it did."""
    with transaction(db):  # the CHECK on runs.state refuses any other state
        cursor = db.execute("UPDATE runs SET state = ?, error = ?, updated_at = ? WHERE run_key = ? "
                            "AND attempt = ? AND state = 'RUNNING'",
                            (state, error, utc_text(now), run_key, attempt))
        if cursor.rowcount != 1:
            return False
        db.execute("UPDATE attempts SET outcome = ? WHERE run_key = ? AND attempt = ?",
                   (state, run_key, attempt))
    return True
