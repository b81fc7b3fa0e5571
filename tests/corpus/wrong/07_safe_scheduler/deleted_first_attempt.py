# Bug: recovery deletes the dead attempt and starts the run over as attempt 1, erasing the
# evidence of the crash.
# ruff: noqa: F821, E501, B905 (the other names come from the notebook's setup cells)
# notebook: 07_safe_scheduler
# loses: test_runs_table
# %% answer_runs_table edited
#         return {"action": "duplicate", "attempt": attempt, "raw_hash": raw_hash}
#+    if state == "RUNNING":
#+        with transaction(db):
#+            db.execute("DELETE FROM attempts WHERE run_key = ?", (run_key,))
#+            db.execute("DELETE FROM runs WHERE run_key = ?", (run_key,))
#+            db.execute(
#+                "INSERT INTO runs (run_key, state, attempt, owner, lease_expires_at, raw_hash, "
#+                "created_at, updated_at) VALUES (?, 'RUNNING', 1, ?, ?, ?, ?, ?)",
#+                (run_key, owner, lease, raw_hash, stamp, stamp))
#+            db.execute("INSERT INTO attempts VALUES (?, 1, ?, ?, 'RUNNING', 'first')",
#+                       (run_key, owner, stamp))
#+        return {"action": "recovered", "attempt": 1, "raw_hash": raw_hash}
#     # An expired lease is recovered with the same raw input; a FAILED run is retried afresh.
