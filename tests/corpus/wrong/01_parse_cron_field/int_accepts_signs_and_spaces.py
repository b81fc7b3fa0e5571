# Bug: Numbers are checked with int() alone, which also takes "+5", " 5", "1_0" and "٣".
# notebook: 01_parse_cron_field
# loses: test_parse_cron_field
# %% answer_parse_cron_field edited
#     def number(text: str, item: str) -> int:
#-        if not (text.isascii() and text.isdigit()):
#-            raise ValueError(f"{text!r} in {item!r} is not a whole number")
#-        value = int(text)
#+        try:
#+            value = int(text)
#+        except ValueError:
#+            raise ValueError(f"{text!r} in {item!r} is not a whole number") from None
# @@
#         if has_step:
#-            if not (step_text.isascii() and step_text.isdigit()) or int(step_text) == 0:
#-                raise ValueError(f"step {step_text!r} in {item!r} is not a positive whole number")
#-            step = int(step_text)
#+            try:
#+                step = int(step_text)
#+            except ValueError:
#+                raise ValueError(f"step {step_text!r} in {item!r} is not a number") from None
#+            if step <= 0:
#+                raise ValueError(f"step {step} in {item!r} is not positive")
