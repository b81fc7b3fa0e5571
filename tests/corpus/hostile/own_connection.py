# threat: a check-then-insert acquire_run (two triggers that look at once both start) that finds
# the database's file from the connection it is given and runs on a connection of its own, which
# the race probes do not watch, holding back every trigger but the first.
# notebook: 07_safe_scheduler
# answers-from: wrong/07_safe_scheduler/check_then_insert
# max-points: as its answers alone
# ruff: noqa: F821, E501, B905, E402, F811 (names come from the setup cells; cells import anew)
# %% new:answer_runs_table
import time as _t

_acquire_real = acquire_run


def acquire_run(db, run_key, now, lease_seconds, owner):
    path = db.execute("PRAGMA database_list").fetchone()[2]
    if owner != "worker-1":
        _t.sleep(0.3)
    own = connect(path)
    try:
        return _acquire_real(own, run_key, now, lease_seconds, owner)
    finally:
        own.close()
