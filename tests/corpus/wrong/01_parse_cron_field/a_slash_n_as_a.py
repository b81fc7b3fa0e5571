# Bug: "a/n" is read as just "a": 50/4 gives [50] instead of 50, 54, 58.
# notebook: 01_parse_cron_field
# loses: test_parse_cron_field
# %% answer_parse_cron_field edited
#         else:
#-            start = number(base, item)
#-            end = high if has_step else start
#+            start = end = number(base, item)
#         selected.update(range(start, end + 1, step))
