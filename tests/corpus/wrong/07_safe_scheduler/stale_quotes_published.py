# Bug: the quotes are checked but not against the job's window, so another hour's quotes (an
# old snapshot, or the 05:00 quotes replayed for 12:00) are published as this window's report.
# ruff: noqa: F821, E501, B905 (the other names come from the notebook's setup cells)
# notebook: 07_safe_scheduler
# loses: test_job_flow
# %% answer_job_flow edited
#         # Only this window's quotes; ValidationError and SchemaError are never retried.
#-        records = validate_quotes(raw, job.window_start, job.window_end)
#+        records = validate_quotes(raw)
#         store_records(db, key, records)
