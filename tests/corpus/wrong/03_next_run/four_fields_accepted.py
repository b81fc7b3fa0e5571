# Bug: Missing fields are filled with '*', so an expression with four fields (or none) is
# searched instead of rejected.
# ruff: noqa: F821 (datetime, timedelta and parse_cron_field come from the notebook)
# notebook: 03_next_run
# loses: test_next_run
# %% answer_next_run
def next_run(expression, after):
    fields = expression.split()
    if len(fields) > 5:
        raise ValueError(f"too many fields in {expression!r}")
    fields += ["*"] * (5 - len(fields))
    minutes = set(parse_cron_field(fields[0], 0, 59))
    hours = set(parse_cron_field(fields[1], 0, 23))
    days = set(parse_cron_field(fields[2], 1, 31))
    months = set(parse_cron_field(fields[3], 1, 12))
    weekdays = {day % 7 for day in parse_cron_field(fields[4], 0, 7)}
    moment = after.replace(second=0, microsecond=0) + timedelta(minutes=1)
    give_up = after + timedelta(days=5 * 366)
    while moment <= give_up:
        if not (moment.month in months and moment.day in days
                and moment.isoweekday() % 7 in weekdays):
            moment = moment.replace(hour=0, minute=0) + timedelta(days=1)
        elif moment.hour not in hours:
            moment = moment.replace(minute=0) + timedelta(hours=1)
        elif moment.minute not in minutes:
            moment += timedelta(minutes=1)
        else:
            return moment
    raise ValueError(f"{expression!r} does not fire within five years")
