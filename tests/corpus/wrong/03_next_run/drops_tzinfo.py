# Bug: The result is rebuilt from its fields and loses after's tzinfo.
# ruff: noqa: F821 (datetime, timedelta and parse_cron_field come from the notebook)
# notebook: 03_next_run
# loses: test_next_run
# %% answer_next_run edited
#         else:
#-            return moment
#-    raise ValueError(f"{expression!r} does not fire within five years after {after}")
#+            return datetime(moment.year, moment.month, moment.day, moment.hour,
#+                            moment.minute)
#+    raise ValueError(f"{expression!r} does not fire within five years")
