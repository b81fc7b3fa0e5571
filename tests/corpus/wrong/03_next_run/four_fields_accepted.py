# Bug: Missing fields are filled with '*', so an expression with four fields (or none) is
# searched instead of rejected.
# ruff: noqa: F821 (datetime, timedelta and parse_cron_field come from the notebook)
# notebook: 03_next_run
# loses: test_next_run
# %% answer_next_run edited
#     fields = expression.split()
#-    if len(fields) != 5:
#-        raise ValueError(f"a cron expression has 5 fields, {expression!r} has {len(fields)}")
#-    # Parse once: the search below may look at millions of minutes.
#+    if len(fields) > 5:
#+        raise ValueError(f"too many fields in {expression!r}")
#+    fields += ["*"] * (5 - len(fields))
#     minutes = set(parse_cron_field(fields[0], 0, 59))
