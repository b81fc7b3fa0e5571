# Bug: the run key leaves out the job's name, so two jobs over the same window, configuration
# and source share one key, and the second is skipped.
# ruff: noqa: F821, E501 (the other names come from the notebook's setup cells)
# notebook: 07_safe_scheduler
# loses: test_run_key
# %% answer_run_key edited
#     parts = {
#-        "job": job,
#         "window_start": utc_text(window_start),
