# Bug: the run key names the window by its end alone, so a longer or shorter window ending
# at the same moment counts as the same run.
# ruff: noqa: F821, E501 (the other names come from the notebook's setup cells)
# notebook: 07_safe_scheduler
# loses: test_run_key
# %% answer_run_key edited
#         "job": job,
#-        "window_start": utc_text(window_start),
#         "window_end": utc_text(window_end),
