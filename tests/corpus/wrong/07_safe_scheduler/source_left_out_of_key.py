# Bug: the run key leaves out the dataset source, so a run over another source counts as
# already done.
# ruff: noqa: F821, E501 (the other names come from the notebook's setup cells)
# notebook: 07_safe_scheduler
# loses: test_run_key
# %% answer_run_key edited
#         "config_hash": config_hash(config),
#-        "source": source,
#     }
