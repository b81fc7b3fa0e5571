# Bug: The seconds and microseconds of after are kept in the result.
# ruff: noqa: F821 (datetime, timedelta and parse_cron_field come from the notebook)
# notebook: 03_next_run
# loses: test_next_run
# %% answer_next_run edited
#     months = set(parse_cron_field(fields[3], 1, 12))
#-    weekdays = {day % 7 for day in parse_cron_field(fields[4], 0, 7)}  # 7 is Sunday, like 0
#-
#-    moment = after.replace(second=0, microsecond=0) + timedelta(minutes=1)
#+    weekdays = {day % 7 for day in parse_cron_field(fields[4], 0, 7)}
#+    moment = after + timedelta(minutes=1)
#     give_up = after + timedelta(days=5 * 366)
