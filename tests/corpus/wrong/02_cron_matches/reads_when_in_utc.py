# Bug: An aware `when` is converted to UTC first, so its fields are read on UTC's clock,
# not its own.
# ruff: noqa: F821 (parse_cron_field comes from the notebook's other answer cell)
# notebook: 02_cron_matches
# loses: test_cron_matches
# %% answer_cron_matches
def cron_matches(expression, when):
    from datetime import timezone

    fields = expression.split()
    if len(fields) != 5:
        raise ValueError(f"expected 5 fields, got {len(fields)}")
    minutes = parse_cron_field(fields[0], 0, 59)
    hours = parse_cron_field(fields[1], 0, 23)
    days = parse_cron_field(fields[2], 1, 31)
    months = parse_cron_field(fields[3], 1, 12)
    weekdays = {0 if v == 7 else v for v in parse_cron_field(fields[4], 0, 7)}
    if when.tzinfo is not None:
        when = when.astimezone(timezone.utc)
    return (when.minute in minutes and when.hour in hours and when.day in days
            and when.month in months and when.isoweekday() % 7 in weekdays)
