# Bug: a value must be greater than the field's lowest (low < value), so minute 0, day 1 and
# Sunday as 0 are refused.
# notebook: 01_parse_cron_field
# loses: test_parse_cron_field
# %% answer_parse_cron_field edited
#         value = int(text)
#-        if not low <= value <= high:
#+        if not low < value <= high:
#             raise ValueError(f"{value} in {item!r} is outside {low}-{high}")
