# Honest: the search goes a day at a time with dates; on a day whose date matches, the
# matching hours and minutes are tried in increasing order, each moment built with
# datetime.combine(..., tzinfo=after.tzinfo) so the time zone is kept. The warm-up does
# the same for today and tomorrow. Uses the student's own parse_cron_field and cron_matches.
# ruff: noqa: F821, E402, F811 (names from the notebook; each cell imports what it uses)
# notebook: 03_next_run
# answers-from: honest/02_cron_matches/calendar_weekday_loop
# %% answer_next_run_minute
from datetime import time


def next_run_minute(minutes, hours, after):
    hour_list = sorted(hours) if hours is not None else list(range(24))
    minute_list = sorted(minutes) if minutes is not None else list(range(60))
    for day in (after.date(), after.date() + timedelta(days=1)):
        for hour in hour_list:
            for minute in minute_list:
                moment = datetime.combine(day, time(hour, minute), tzinfo=after.tzinfo)
                if moment > after:
                    return moment
    raise ValueError("nothing matches")
# %% answer_next_run
from datetime import time


def next_run(expression, after):
    texts = expression.split()
    if len(texts) != 5:
        raise ValueError(f"expected 5 fields in {expression!r}, found {len(texts)}")
    minutes = parse_cron_field(texts[0], 0, 59)
    hours = parse_cron_field(texts[1], 0, 23)
    days = set(parse_cron_field(texts[2], 1, 31))
    months = set(parse_cron_field(texts[3], 1, 12))
    weekdays = {0 if day == 7 else day for day in parse_cron_field(texts[4], 0, 7)}
    limit = after + timedelta(days=5 * 366)
    day = after.date()
    while day <= limit.date():
        if day.day in days and day.month in months and day.isoweekday() % 7 in weekdays:
            for hour in hours:
                for minute in minutes:
                    moment = datetime.combine(day, time(hour, minute), tzinfo=after.tzinfo)
                    if moment > after and moment <= limit:
                        return moment
        day += timedelta(days=1)
    raise ValueError(f"{expression!r} never fires in the five years after {after}")
