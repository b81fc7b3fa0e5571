# Bug: no UNIQUE constraint: acquire_run looks with SELECT and then INSERTs, so two triggers that
# look at once both start.
# ruff: noqa: F821, E501, B905 (the other names come from the notebook's setup cells)
# notebook: 07_safe_scheduler
# loses: test_runs_table
# %% answer_runs_table edited
#         CREATE TABLE IF NOT EXISTS runs (
#-            run_key TEXT NOT NULL UNIQUE,
#+            run_key TEXT NOT NULL,
#             state TEXT NOT NULL CHECK (state IN ('RUNNING', 'SUCCEEDED', 'FAILED')),
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
