# threat: acquire_run that checks and then inserts (two triggers at once collide), plus a cell of
# its own that rebinds the race probe's data: the seconds it lets the workers take to meet at
# their first statement, so that the "simultaneous" workers no longer wait for each other and
# the race is left to timing (a constant of the probe module, not a function).
# notebook: 07_safe_scheduler
# max-points: as its answers alone
# ruff: noqa: F821, E501, B905, E402, F811 (names come from the setup cells; cells import anew)
# %% answer_runs_table edited
#     """)
#-
#-
# def acquire_run(db: sqlite3.Connection, run_key: str, now: datetime, lease_seconds: float,
# @@
#     lease = utc_text(now + timedelta(seconds=lease_seconds))
#-    try:
#-        with transaction(db):  # the UNIQUE constraint decides who is first, not a SELECT
#+    row = db.execute("SELECT 1 FROM runs WHERE run_key = ?", (run_key,)).fetchone()
#+    if row is None:
#+        with transaction(db):
#             db.execute(
# @@
#         return {"action": "started", "attempt": 1, "raw_hash": None}
#-    except sqlite3.IntegrityError:
#-        pass
#     state, attempt, lease_text, raw_hash = db.execute(
# @@
#     return {"action": action, "attempt": attempt + 1, "raw_hash": kept_hash}
#-
#-
# def finish_run(db: sqlite3.Connection, run_key: str, attempt: int, state: str, now: datetime,
# %% new
import sys

for name, module in list(sys.modules.items()):
    if name.endswith("probes._capstone"):
        module.RACE_WAIT = 0.0
