# Bug: a lone value is read as a step, as if "30" were "*/30": 30 on minutes selects 0 and 30,
# 59 selects 0 and 59, and 0 raises (range() refuses a step of 0).
# notebook: 01_parse_cron_field
# loses: test_parse_cron_field
# %% answer_parse_cron_field edited
#         else:
#-            start = number(base, item)
#-            end = high if has_step else start
#+            if has_step:
#+                start, end = number(base, item), high
#+            else:  # "30" taken to mean "every 30 minutes"
#+                start, end, step = low, high, number(base, item)
#         selected.update(range(start, end + 1, step))
