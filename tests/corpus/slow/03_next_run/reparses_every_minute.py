# Honest but slow: a minute-by-minute search that splits and parses the expression again at
# every minute it looks at (the minute and hour fields always, the others when they matter).
# Every answer is right; five years take it several seconds of CPU time, well inside the
# suite's limits, and its score must not depend on how busy the machine is.
# ruff: noqa: F821 (datetime, timedelta and parse_cron_field come from the notebook)
# notebook: 03_next_run
# %% answer_next_run
def next_run(expression, after):
    fields = expression.split()
    if len(fields) != 5:
        raise ValueError(f"expected five fields, got {len(fields)}")
    for field, low, high in zip(fields, (0, 0, 1, 1, 0), (59, 23, 31, 12, 7), strict=True):
        parse_cron_field(field, low, high)  # a bad field raises at once
    moment = after.replace(second=0, microsecond=0) + timedelta(minutes=1)
    end = after + timedelta(days=5 * 366)  # the notebook's exact bound, inclusive
    while moment <= end:
        minute, hour, day, month, weekday = expression.split()
        minutes, hours = parse_cron_field(minute, 0, 59), parse_cron_field(hour, 0, 23)
        if (moment.minute in minutes and moment.hour in hours
                and moment.day in parse_cron_field(day, 1, 31)
                and moment.month in parse_cron_field(month, 1, 12)
                and (moment.weekday() + 1) % 7 in [d % 7 for d in parse_cron_field(weekday, 0, 7)]):
            return moment
        moment += timedelta(minutes=1)
    raise ValueError(f"{expression} never fires in five years")
