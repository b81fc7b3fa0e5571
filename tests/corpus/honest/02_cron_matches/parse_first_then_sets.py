# Honest: the student's own regex parser from notebook 01 pasted in; the five fields are
# split with str.split(), all parsed before anything is compared, kept as sets, and the
# day of week is compared through isoweekday() % 7 with 7 read as 0.
# ruff: noqa: F821, B905 (parse_cron_field comes from the notebook)
# notebook: 02_cron_matches
# answers-from: honest/01_parse_cron_field/regex_per_item
# %% answer_cron_matches
FIELD_RANGES = [(0, 59), (0, 23), (1, 31), (1, 12), (0, 7)]


def cron_matches(expression, when):
    fields = expression.split()
    if len(fields) != 5:
        raise ValueError(f"a cron expression has five fields, {expression!r} has {len(fields)}")
    minutes, hours, days, months, weekdays = (
        set(parse_cron_field(text, low, high)) for text, (low, high) in zip(fields, FIELD_RANGES))
    if 7 in weekdays:
        weekdays.add(0)
    return (when.minute in minutes and when.hour in hours and when.day in days
            and when.month in months and when.isoweekday() % 7 in weekdays)
