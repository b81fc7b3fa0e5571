# Bug: "*/n" starts at 0 instead of the field's lowest value: */7 on days gives 7, 14, 21, 28.
# notebook: 01_parse_cron_field
# loses: test_parse_cron_field
# %% answer_parse_cron_field edited
#         if base == "*":
#-            start, end = low, high
#-        elif "-" in base:
#+            # every n-th value: the multiples of n that fall in the field
#+            selected.update(v for v in range(0, high + 1, step) if v >= low)
#+            continue
#+        if "-" in base:
#             first, _, last = base.partition("-")
