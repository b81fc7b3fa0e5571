# Bug: a field that parse_cron_field refuses is read as "*" instead of raising, so a typo such as
# minute 61 fires every minute rather than stopping at the bad expression.
# notebook: 03_next_run
# loses: test_next_run
# %% answer_next_run edited
#     # Parse once: the search below may look at millions of minutes.
#-    minutes = set(parse_cron_field(fields[0], 0, 59))
#-    hours = set(parse_cron_field(fields[1], 0, 23))
#-    days = set(parse_cron_field(fields[2], 1, 31))
#-    months = set(parse_cron_field(fields[3], 1, 12))
#-    weekdays = {day % 7 for day in parse_cron_field(fields[4], 0, 7)}  # 7 is Sunday, like 0
#+    def field(text: str, low: int, high: int) -> list[int]:
#+        try:
#+            return parse_cron_field(text, low, high)
#+        except ValueError:  # a field it cannot read selects every value, like "*"
#+            return list(range(low, high + 1))
#+
#+    minutes = set(field(fields[0], 0, 59))
#+    hours = set(field(fields[1], 0, 23))
#+    days = set(field(fields[2], 1, 31))
#+    months = set(field(fields[3], 1, 12))
#+    weekdays = {day % 7 for day in field(fields[4], 0, 7)}  # 7 is Sunday, like 0
#
