# Bug: scheduler_settings refuses a runtime only when it is longer than the freshness need,
# so a run exactly as long is accepted, with a grace time of 0.
# ruff: noqa: F821, E501 (the other names come from the notebook's setup cells)
# notebook: 07_safe_scheduler
# loses: test_scheduling
# %% answer_scheduling edited
#         raise ValueError(f"runtime_minutes must be 0 or more, got {runtime_minutes}")
#-    if freshness_minutes <= runtime_minutes:
#+    if freshness_minutes < runtime_minutes:
#         raise ValueError(f"a run takes {runtime_minutes} min, so it can never deliver data "
