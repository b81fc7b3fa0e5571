# Bug: * selects from 0 whatever the field, so a star on day-of-month (1-31) or month (1-12)
# holds a 0.
# notebook: 01_parse_cron_field
# loses: test_parse_cron_field
# %% answer_parse_cron_field edited
#         if base == "*":
#-            start, end = low, high
#+            start, end = 0, high
#         elif "-" in base:
