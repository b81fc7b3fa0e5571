# Bug: the run key leaves out the configuration hash, so a changed configuration counts as
# already done.
# ruff: noqa: F821, E501, B905 (the other names come from the notebook's setup cells)
# notebook: 07_safe_scheduler
# loses: test_run_key
# %% answer_run_key edited
#         "window_end": utc_text(window_end),
#-        "config_hash": config_hash(config),
#         "source": source,
