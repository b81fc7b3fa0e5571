# Bug: run_key writes the window with isoformat() instead of utc_text, so the same window
# given in Karachi time gets another key.
# ruff: noqa: F821, E501 (the other names come from the notebook's setup cells)
# notebook: 07_safe_scheduler
# loses: test_run_key
# %% answer_run_key edited
#         "job": job,
#-        "window_start": utc_text(window_start),
#-        "window_end": utc_text(window_end),
#+        "window_start": window_start.isoformat(),
#+        "window_end": window_end.isoformat(),
#         "config_hash": config_hash(config),
