# Bug: The first field is read as the hour and the second as the minute.
# ruff: noqa: F821 (datetime, timedelta and parse_cron_field come from the notebook)
# notebook: 03_next_run
# loses: test_next_run
# %% answer_next_run edited
#     if len(fields) != 5:
#-        raise ValueError(f"a cron expression has 5 fields, {expression!r} has {len(fields)}")
#-    # Parse once: the search below may look at millions of minutes.
#-    minutes = set(parse_cron_field(fields[0], 0, 59))
#-    hours = set(parse_cron_field(fields[1], 0, 23))
#+        raise ValueError(f"expected 5 fields in {expression!r}")
#+    minutes = set(parse_cron_field(fields[1], 0, 59))
#+    hours = set(parse_cron_field(fields[0], 0, 23))
#     days = set(parse_cron_field(fields[2], 1, 31))
