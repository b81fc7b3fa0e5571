# Honest: the plain search the notebook describes, one minute at a time, with the parsed
# fields kept as the lists parse_cron_field returns. It must earn full marks in time.
# ruff: noqa: F821 (datetime, timedelta and parse_cron_field come from the notebook)
# notebook: 03_next_run
# %% answer_next_run_minute
def next_run_minute(minutes, hours, after):
    moment = after.replace(second=0, microsecond=0) + timedelta(minutes=1)
    while True:
        if minutes is not None and moment.minute not in minutes:
            moment += timedelta(minutes=1)
        elif hours is not None and moment.hour not in hours:
            moment += timedelta(minutes=1)
        else:
            return moment
# %% answer_next_run
def next_run(expression, after):
    minute, hour, day, month, weekday = expression.split()
    minutes = parse_cron_field(minute, 0, 59)
    hours = parse_cron_field(hour, 0, 23)
    days = parse_cron_field(day, 1, 31)
    months = parse_cron_field(month, 1, 12)
    weekdays = [d % 7 for d in parse_cron_field(weekday, 0, 7)]
    moment = after.replace(second=0, microsecond=0) + timedelta(minutes=1)
    end = after + timedelta(days=5 * 366)
    while moment <= end:
        if (moment.minute in minutes and moment.hour in hours and moment.day in days
                and moment.month in months and (moment.weekday() + 1) % 7 in weekdays):
            return moment
        moment = moment + timedelta(minutes=1)
    raise ValueError(f"{expression} never fires in five years")
