# Bug: scheduler_settings checks the minute against 0-60, so minute 60 (not a minute of any
# hour) is accepted.
# ruff: noqa: F821, E501 (the other names come from the notebook's setup cells)
# notebook: 07_safe_scheduler
# loses: test_scheduling
# %% answer_scheduling edited
#     """Keyword arguments for APScheduler's add_job: an hourly cron trigger at `minute`."""
#-    if not 0 <= minute <= 59:
#+    if not 0 <= minute <= 60:
#         raise ValueError(f"minute must be 0-59, got {minute}")
