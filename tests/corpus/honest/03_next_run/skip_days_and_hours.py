# Honest: the notebook's optional speed-up: parse once into sets, then jump to the next
# midnight when the date cannot match and to the next whole hour when the hour cannot;
# otherwise one minute at a time. The warm-up steps through at most one day of minutes.
# Uses the student's own parse_cron_field and cron_matches from notebooks 01 and 02.
# ruff: noqa: F821, B905 (datetime, timedelta and parse_cron_field come from the notebook)
# notebook: 03_next_run
# answers-from: honest/02_cron_matches/parse_first_then_sets
# %% answer_next_run_minute
def next_run_minute(minutes, hours, after):
    candidate = after.replace(second=0, microsecond=0) + timedelta(minutes=1)
    for _ in range(24 * 60):
        if (minutes is None or candidate.minute in minutes) and (
                hours is None or candidate.hour in hours):
            return candidate
        candidate += timedelta(minutes=1)
    raise ValueError("no minute of the day matches")
# %% answer_next_run
def next_run(expression: str, after: datetime) -> datetime:
    fields = expression.split()
    if len(fields) != 5:
        raise ValueError(f"{expression!r} does not have five fields")
    bounds = [(0, 59), (0, 23), (1, 31), (1, 12), (0, 7)]
    minutes, hours, days, months, weekdays = (
        set(parse_cron_field(text, low, high)) for text, (low, high) in zip(fields, bounds))
    weekdays = {day % 7 for day in weekdays}
    last = after + timedelta(days=5 * 366)
    moment = after.replace(second=0, microsecond=0, fold=0) + timedelta(minutes=1)
    while moment <= last:
        if (moment.day not in days or moment.month not in months
                or moment.isoweekday() % 7 not in weekdays):
            moment = (moment + timedelta(days=1)).replace(hour=0, minute=0)
        elif moment.hour not in hours:
            moment = (moment + timedelta(hours=1)).replace(minute=0)
        elif moment.minute not in minutes:
            moment += timedelta(minutes=1)
        else:
            return moment
    raise ValueError(f"{expression!r} does not fire within five years after {after}")
