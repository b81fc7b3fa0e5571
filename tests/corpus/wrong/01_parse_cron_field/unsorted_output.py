# Bug: Values come back in the order the items name them ("45,0-10/5,5" gives [45, 0, 5, 10]).
# notebook: 01_parse_cron_field
# loses: test_parse_cron_field
# %% answer_parse_cron_field edited
#         raise ValueError("the field is empty")
#-    selected: set[int] = set()
#+    seen = {}  # a dict keeps each value once, in the order it was first selected
#     for item in field.split(","):
# @@
#             end = high if has_step else start
#-        selected.update(range(start, end + 1, step))
#-    return sorted(selected)
#+        seen.update(dict.fromkeys(range(start, end + 1, step)))
#+    return list(seen)
