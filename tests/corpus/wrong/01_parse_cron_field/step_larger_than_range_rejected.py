# Bug: A step larger than the range it counts over is rejected, but "*/60" on minutes selects
# only the start, [0].
# notebook: 01_parse_cron_field
# loses: test_parse_cron_field
# %% answer_parse_cron_field edited
#         base, has_step, step_text = item.partition("/")
#-        step = 1
#-        if has_step:
#-            if not (step_text.isascii() and step_text.isdigit()) or int(step_text) == 0:
#-                raise ValueError(f"step {step_text!r} in {item!r} is not a positive whole number")
#-            step = int(step_text)
#+        if has_step and not (step_text.isascii() and step_text.isdigit()):
#+            raise ValueError(f"step {step_text!r} in {item!r} is not a whole number")
#+        step = int(step_text) if has_step else 1
#+        if step == 0:
#+            raise ValueError(f"step 0 in {item!r}")
#         if base == "*":
# @@
#             end = high if has_step else start
#+        if has_step and step > end - start:
#+            raise ValueError(f"step {step} in {item!r} is larger than the range {start}-{end}")
#         selected.update(range(start, end + 1, step))
