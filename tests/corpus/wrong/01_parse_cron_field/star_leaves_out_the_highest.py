# Bug: * is read as range(low, high), Python's habit of leaving out the end, so a star on
# minutes stops at 58 and a star on weekdays leaves out 7 (Sunday).
# notebook: 01_parse_cron_field
# loses: test_parse_cron_field
# %% answer_parse_cron_field edited
#         if base == "*":
#-            start, end = low, high
#+            start, end = low, high - 1
#         elif "-" in base:
