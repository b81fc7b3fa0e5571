# Bug: no UNIQUE constraint: acquire_run looks with SELECT and then INSERTs, and holds a lock of
# Python's while it does, which keeps threads of one process apart but not two triggers in two
# processes (or on two machines), which both start.
# ruff: noqa: F821 (the other names come from the notebook's setup cells and answers)
# notebook: 07_safe_scheduler
# answers-from: wrong/07_safe_scheduler/check_then_insert
# loses: test_runs_table
# %% new:answer_runs_table
import threading

_ACQUIRING = threading.RLock()  # one trigger at a time, but only within this process
_acquire_unlocked = acquire_run


def acquire_run(db, run_key: str, now: datetime, lease_seconds: float, owner: str) -> dict:
    """acquire_run, one trigger at a time in this process."""
    with _ACQUIRING:
        return _acquire_unlocked(db, run_key, now, lease_seconds, owner)
