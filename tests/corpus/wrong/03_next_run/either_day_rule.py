# Bug: Cron's either-day quirk: a restricted day-of-month OR day-of-week is enough.
# ruff: noqa: F821 (datetime, timedelta and parse_cron_field come from the notebook)
# notebook: 03_next_run
# loses: test_next_run
# %% answer_next_run edited
#     while moment <= give_up:
#-        if not (moment.month in months and moment.day in days
#-                and moment.isoweekday() % 7 in weekdays):
#-            # No minute of this day can match: go to the next midnight.
#+        day_ok = moment.day in days
#+        weekday_ok = moment.isoweekday() % 7 in weekdays
#+        both_restricted = fields[2] != "*" and fields[4] != "*"
#+        date_ok = (day_ok or weekday_ok) if both_restricted else (day_ok and weekday_ok)
#+        if not (moment.month in months and date_ok):
#             moment = moment.replace(hour=0, minute=0) + timedelta(days=1)
