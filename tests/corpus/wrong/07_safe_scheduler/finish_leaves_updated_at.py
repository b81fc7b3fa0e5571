# Bug: finish_run sets the state and the error but not updated_at, so a finished run's row still
# says it last changed when it was started or recovered.
# ruff: noqa: F821, E501, B905 (the other names come from the notebook's setup cells)
# notebook: 07_safe_scheduler
# loses: test_runs_table
# %% answer_runs_table edited
#         changed = db.execute(
#-            "UPDATE runs SET state = ?, error = ?, updated_at = ? "
#+            "UPDATE runs SET state = ?, error = ? "
#             "WHERE run_key = ? AND attempt = ? AND state = 'RUNNING'",
#-            (state, error, utc_text(now), run_key, attempt)).rowcount
#+            (state, error, run_key, attempt)).rowcount
#         if changed:
