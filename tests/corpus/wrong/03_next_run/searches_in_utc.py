# Bug: An aware after is converted to UTC for the search, so the fields are read in UTC.
# ruff: noqa: F821 (datetime, timedelta and parse_cron_field come from the notebook)
# notebook: 03_next_run
# loses: test_next_run
# %% answer_next_run edited
#     weekdays = {day % 7 for day in parse_cron_field(fields[4], 0, 7)}  # 7 is Sunday, like 0
#+    from datetime import timezone
#+
#+    zone = after.tzinfo
#+    if zone is not None:
#+        after = after.astimezone(timezone.utc)
# @@
#         else:
#-            return moment
#+            return moment.astimezone(zone) if zone is not None else moment
