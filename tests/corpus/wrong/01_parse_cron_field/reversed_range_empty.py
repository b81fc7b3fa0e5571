# Bug: A reversed range such as "5-1" is not rejected; it quietly selects nothing.
# notebook: 01_parse_cron_field
# loses: test_parse_cron_field
# %% answer_parse_cron_field edited
#             start, end = number(first, item), number(last, item)
#-            if start > end:
#-                raise ValueError(f"range {base!r} in {item!r} is reversed")
#         else:
