# Bug: A missing step or a missing start is filled in: "*/" reads as "*", "/5" as "*/5".
# notebook: 01_parse_cron_field
# loses: test_parse_cron_field
# %% answer_parse_cron_field edited
#             raise ValueError(f"empty item in field {field!r}")
#-        base, has_step, step_text = item.partition("/")
#+        base, _, step_text = item.partition("/")
#         step = 1
#-        if has_step:
#+        if step_text:
#             if not (step_text.isascii() and step_text.isdigit()) or int(step_text) == 0:
# @@
#             step = int(step_text)
#-        if base == "*":
#+        if base in ("*", ""):
#             start, end = low, high
# @@
#             start = number(base, item)
#-            end = high if has_step else start
#+            end = high if step_text else start
#         selected.update(range(start, end + 1, step))
