# Bug: a retry marks the FAILED attempt before it 'EXPIRED' too, as a recovery does, so the
# attempts table no longer says that attempt failed.
# ruff: noqa: F821, E501 (the other names come from the notebook's setup cells)
# notebook: 07_safe_scheduler
# loses: test_runs_table
# %% answer_runs_table edited
#             (owner, lease, kept_hash, stamp, run_key, attempt, state)).rowcount
#-        if taken:
#-            if action == "recovered":
#-                db.execute("UPDATE attempts SET outcome = 'EXPIRED' "
#-                           "WHERE run_key = ? AND attempt = ?", (run_key, attempt))
#+        if taken:  # the attempt before is over, whatever ended it
#+            db.execute("UPDATE attempts SET outcome = 'EXPIRED' "
#+                       "WHERE run_key = ? AND attempt = ?", (run_key, attempt))
#             db.execute("INSERT INTO attempts VALUES (?, ?, ?, ?, 'RUNNING', ?)",
