# Bug: Skips a wrong month with replace(month=month + 1), which raises after December.
# ruff: noqa: F821 (datetime, timedelta and parse_cron_field come from the notebook)
# notebook: 03_next_run
# loses: test_next_run
# %% answer_next_run edited
#     while moment <= give_up:
#-        if not (moment.month in months and moment.day in days
#+        if moment.month not in months:
#+            moment = moment.replace(month=moment.month + 1, day=1, hour=0, minute=0)
#+        elif not (moment.month in months and moment.day in days
#                 and moment.isoweekday() % 7 in weekdays):
