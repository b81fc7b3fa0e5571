# Bug: str.isdigit() without str.isascii(): digits of other scripts such as "٣" (3) pass.
# notebook: 01_parse_cron_field
# loses: test_parse_cron_field
# %% answer_parse_cron_field edited
#     """The sorted values that one cron field selects out of low..high (both included)."""
#-    def number(text: str, item: str) -> int:
#-        if not (text.isascii() and text.isdigit()):
#+    def number(text, item):
#+        if not text.isdigit():
#             raise ValueError(f"{text!r} in {item!r} is not a whole number")
# @@
#         if has_step:
#-            if not (step_text.isascii() and step_text.isdigit()) or int(step_text) == 0:
#+            if not step_text.isdigit() or int(step_text) == 0:
#                 raise ValueError(f"step {step_text!r} in {item!r} is not a positive whole number")
