# Bug: A hand-made table of month lengths without leap years: no 29 February.
# ruff: noqa: F821 (datetime, timedelta and parse_cron_field come from the notebook)
# notebook: 03_next_run
# loses: test_next_run
# %% answer_next_run
def next_run(expression, after):
    lengths = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]  # February always has 28 days
    fields = expression.split()
    if len(fields) != 5:
        raise ValueError(f"expected 5 fields in {expression!r}")
    minutes = parse_cron_field(fields[0], 0, 59)
    hours = parse_cron_field(fields[1], 0, 23)
    days = parse_cron_field(fields[2], 1, 31)
    months = parse_cron_field(fields[3], 1, 12)
    weekdays = {day % 7 for day in parse_cron_field(fields[4], 0, 7)}
    start = after.replace(second=0, microsecond=0) + timedelta(minutes=1)
    year, month, day = start.year, start.month, start.day
    for _ in range(5 * 366):
        date = start.replace(year=year, month=month, day=day, hour=0, minute=0)
        if month in months and day in days and date.isoweekday() % 7 in weekdays:
            for hour in hours:
                for minute in minutes:
                    if date.replace(hour=hour, minute=minute) >= start:
                        return date.replace(hour=hour, minute=minute)
        day += 1
        if day > lengths[month - 1]:
            day, month = 1, month + 1
            if month > 12:
                month, year = 1, year + 1
    raise ValueError(f"{expression!r} does not fire within five years")
