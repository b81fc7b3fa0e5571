# Bug: Returns at the first field that misses, so later bad fields go unchecked.
# ruff: noqa: F821 (parse_cron_field comes from the notebook's other answer cell)
# notebook: 02_cron_matches
# loses: test_cron_matches
# %% answer_cron_matches
def cron_matches(expression, when):
    fields = expression.split()
    if len(fields) != 5:
        raise ValueError(f"expected 5 fields, got {len(fields)}")
    if when.minute not in parse_cron_field(fields[0], 0, 59):
        return False
    if when.hour not in parse_cron_field(fields[1], 0, 23):
        return False
    if when.day not in parse_cron_field(fields[2], 1, 31):
        return False
    if when.month not in parse_cron_field(fields[3], 1, 12):
        return False
    weekdays = {0 if v == 7 else v for v in parse_cron_field(fields[4], 0, 7)}
    return when.isoweekday() % 7 in weekdays
