# Bug: a recovery or retry records the new attempt under the run's previous owner (read from
# the runs row before the update), not the worker that made the attempt.
# ruff: noqa: F821, E501 (the other names come from the notebook's setup cells)
# notebook: 07_safe_scheduler
# loses: test_runs_table, test_proofs
# %% answer_runs_table edited
#         pass
#-    state, attempt, lease_text, raw_hash = db.execute(
#-        "SELECT state, attempt, lease_expires_at, raw_hash FROM runs WHERE run_key = ?",
#+    state, attempt, lease_text, raw_hash, holder = db.execute(
#+        "SELECT state, attempt, lease_expires_at, raw_hash, owner FROM runs WHERE run_key = ?",
#         (run_key,)).fetchone()
# @@
#             db.execute("INSERT INTO attempts VALUES (?, ?, ?, ?, 'RUNNING', ?)",
#-                       (run_key, attempt + 1, owner, stamp, action))
#+                       (run_key, attempt + 1, holder, stamp, action))  # the run's old owner
#     if not taken:  # another worker recovered it a moment earlier
