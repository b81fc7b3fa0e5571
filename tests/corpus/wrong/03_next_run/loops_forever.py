# Bug: No limit: for an expression that never fires the search runs on until datetime overflows
# after year 9999 (a minute-by-minute search runs into the time limit first).
# ruff: noqa: F821 (datetime, timedelta and parse_cron_field come from the notebook)
# notebook: 03_next_run
# loses: test_next_run
# %% answer_next_run edited
#     moment = after.replace(second=0, microsecond=0) + timedelta(minutes=1)
#-    give_up = after + timedelta(days=5 * 366)
#-    while moment <= give_up:
#+    while True:
#         if not (moment.month in months and moment.day in days
# @@
#             return moment
#-    raise ValueError(f"{expression!r} does not fire within five years after {after}")
