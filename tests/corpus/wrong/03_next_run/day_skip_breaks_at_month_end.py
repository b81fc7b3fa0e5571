# Bug: Skips to the next day with replace(day=day + 1), which raises at the end of a month.
# ruff: noqa: F821 (datetime, timedelta and parse_cron_field come from the notebook)
# notebook: 03_next_run
# loses: test_next_run
# %% answer_next_run edited
#                 and moment.isoweekday() % 7 in weekdays):
#-            # No minute of this day can match: go to the next midnight.
#-            moment = moment.replace(hour=0, minute=0) + timedelta(days=1)
#+            moment = moment.replace(day=moment.day + 1, hour=0, minute=0)
#         elif moment.hour not in hours:
