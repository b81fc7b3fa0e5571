# Bug: misfire_grace_time is a fixed hour and coalesce is off, whatever the data's freshness
# need.
# ruff: noqa: F821, E501, B905 (the other names come from the notebook's setup cells)
# notebook: 07_safe_scheduler
# loses: test_scheduling
# %% answer_scheduling edited
#         raise ValueError(f"unknown time zone {zone!r}") from None
#-    # A later start delivers stale data, and after an hour the next run is due anyway.
#-    grace_minutes = min(freshness_minutes - runtime_minutes, 60)
#     return {"id": job_id, "trigger": "cron", "minute": minute, "timezone": zone,
#-            "max_instances": 1, "coalesce": True, "misfire_grace_time": grace_minutes * 60,
#+            "max_instances": 1, "coalesce": False, "misfire_grace_time": 3600,
#             "replace_existing": True}
