# threat: a check-then-insert acquire_run (two triggers that look at once both start) whose first
# statement is a SELECT behind a comment, so that a race probe that took only a statement's first
# word for a read never held the racer; every trigger but the first is held back by the clock.
# The race probes hold a racer that read before its first write, however the reads are spelled.
# notebook: 07_safe_scheduler
# answers-from: wrong/07_safe_scheduler/check_then_insert
# max-points: as its answers alone
# ruff: noqa: F821, E501, B905, E402, F811 (names come from the setup cells; cells import anew)
# %% new:answer_runs_table
import time as _t

_acquire_real = acquire_run


def acquire_run(db, run_key, now, lease_seconds, owner):
    db.execute("/* warm the page cache */ SELECT 1").fetchall()
    if owner != "worker-1":
        _t.sleep(0.3)
    return _acquire_real(db, run_key, now, lease_seconds, owner)
