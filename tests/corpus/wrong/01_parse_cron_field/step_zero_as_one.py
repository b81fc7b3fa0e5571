# Bug: A step of 0 is read as "no step" (step 1), so "*/0" selects every value.
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
#+        step = step or 1
#         if base == "*":
