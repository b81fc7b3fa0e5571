# Bug: scheduler_settings never looks the zone up, so a zone zoneinfo does not know is handed
# on to the scheduler instead of raising ValueError.
# ruff: noqa: F821, E501 (the other names come from the notebook's setup cells)
# notebook: 07_safe_scheduler
# loses: test_scheduling
# %% answer_scheduling edited
#                          f"fresher than {freshness_minutes} min")
#-    try:
#-        ZoneInfo(zone)
#-    except (ZoneInfoNotFoundError, ValueError):
#-        raise ValueError(f"unknown time zone {zone!r}") from None
#     # A later start delivers stale data, and after an hour the next run is due anyway.
