# Bug: Day-of-week 7 accepted but never turned into Sunday's 0.
# ruff: noqa: F821 (parse_cron_field comes from the notebook's other answer cell)
# notebook: 02_cron_matches
# loses: test_cron_matches
# %% answer_cron_matches
def cron_matches(expression, when):
    fields = expression.split()
    if len(fields) != 5:
        raise ValueError(f"expected 5 fields, got {len(fields)}")
    minutes = parse_cron_field(fields[0], 0, 59)
    hours = parse_cron_field(fields[1], 0, 23)
    days = parse_cron_field(fields[2], 1, 31)
    months = parse_cron_field(fields[3], 1, 12)
    weekdays = set(parse_cron_field(fields[4], 0, 7))
    return (when.minute in minutes and when.hour in hours and when.day in days
            and when.month in months and when.isoweekday() % 7 in weekdays)
