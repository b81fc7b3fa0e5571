# Bug: Day-of-week from Python's weekday(), which counts Monday as 0.
# ruff: noqa: F821 (datetime, timedelta and parse_cron_field come from the notebook)
# notebook: 03_next_run
# loses: test_next_run
# %% answer_next_run edited
#         if not (moment.month in months and moment.day in days
#-                and moment.isoweekday() % 7 in weekdays):
#-            # No minute of this day can match: go to the next midnight.
#+                and moment.weekday() in weekdays):
#             moment = moment.replace(hour=0, minute=0) + timedelta(days=1)
