# Bug: */n is read as "every n-th value, the first at n": */15 on minutes gives 15, 30, 45
# and leaves out 0, and */7 on days starts at 7.
# notebook: 01_parse_cron_field
# loses: test_parse_cron_field
# %% answer_parse_cron_field edited
#         if base == "*":
#-            start, end = low, high
#+            start, end = (step if has_step else low), high  # */15: at 15, 30, 45
#         elif "-" in base:
