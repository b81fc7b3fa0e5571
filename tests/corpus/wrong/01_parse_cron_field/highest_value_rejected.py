# Bug: a value must be less than the field's highest (value < high), so minute 59, day 31
# and Sunday as 7 are refused.
# notebook: 01_parse_cron_field
# loses: test_parse_cron_field
# %% answer_parse_cron_field edited
#         value = int(text)
#-        if not low <= value <= high:
#+        if not low <= value < high:
#             raise ValueError(f"{value} in {item!r} is outside {low}-{high}")
