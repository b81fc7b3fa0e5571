# Student style: skips whole days that cannot match, then scans the day minute by minute with
# cron_matches (parsing again for every minute it looks at).
# ruff: noqa: F821 (datetime, timedelta, cron_matches and parse_cron_field come from the notebook)
# notebook: 03_next_run
# %% answer_next_run
def next_run(expression, after):
    fields = expression.split()
    if len(fields) != 5:
        raise ValueError("a cron expression has five fields")
    days = parse_cron_field(fields[2], 1, 31)
    months = parse_cron_field(fields[3], 1, 12)
    weekdays = [d % 7 for d in parse_cron_field(fields[4], 0, 7)]
    moment = after.replace(second=0, microsecond=0) + timedelta(minutes=1)
    end = after + timedelta(days=5 * 366)
    while moment <= end:
        if (moment.day not in days or moment.month not in months
                or moment.isoweekday() % 7 not in weekdays):
            moment = moment.replace(hour=0, minute=0) + timedelta(days=1)
            continue
        if cron_matches(expression, moment):
            return moment
        moment += timedelta(minutes=1)
    raise ValueError(f"{expression} never fires in five years")
