# Bug: The limit is after.replace(year=after.year + 5), which raises on 29 February.
# ruff: noqa: F821 (datetime, timedelta and parse_cron_field come from the notebook)
# notebook: 03_next_run
# loses: test_next_run
# %% answer_next_run edited
#     moment = after.replace(second=0, microsecond=0) + timedelta(minutes=1)
#-    give_up = after + timedelta(days=5 * 366)
#+    give_up = after.replace(year=after.year + 5)
#     while moment <= give_up:
