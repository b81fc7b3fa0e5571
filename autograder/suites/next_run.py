"""Hidden tests for next_run (notebook 03, 25 points).

Friday 4 July 2025 unless a case says otherwise. A plain minute-by-minute search that parses the
expression once needs about 2 s on an idle 2-core machine (4-5 s on a busy one) to search five
years and find nothing, so every case whose answer is months or more away gets a generous time
limit (YEARS); the reference skips whole days and hours and answers each case in milliseconds.
"""

from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo

from autograder.suite import call

F = "next_run"
# Seconds for a case whose answer is months or years away: several times what a plain
# minute-by-minute search that parses once needs even on a busy machine (2-5 s for five years).
YEARS = 15.0

FRIDAY = datetime(2025, 7, 4)


def at(hour: int, minute: int, second: int = 0, microsecond: int = 0, **where) -> datetime:
    return FRIDAY.replace(hour=hour, minute=minute, second=second, microsecond=microsecond,
                          **where)


# The rules of the exercise section, word for word.
FIRST = ("Return the first whole minute **strictly after** `after` at which the five-field cron "
         "expression fires")
FIELDS = "minute, hour, day of month, month, day of week; 0 and 7 are Sunday"
BOTH = "**both** day fields must match (the lab's rule)"
WHOLE = "Seconds and microseconds of the result are 0."
ZONE = "The result keeps `after`'s `tzinfo`, and the fields are read on `after`'s own clock"
NOT_ITS_OWN = "A moment that matches exactly is **not** its own next run."
FIVE_YEARS = ("Five years is exact: search the whole minutes after `after` up to and including "
              "`after + timedelta(days=5 * 366)`. If none of them matches")
BAD = "A bad expression (wrong number of fields, a bad field) raises `ValueError`"
FOLD = "`fold` plays no part: the search moves on the wall clock, and the result has `fold=0`."
# A Monday 29 February comes in 2016 and 2044, and 2044-02-29 is 5 * 366 days after this.
BOUNDARY = datetime(2044, 2, 29) - timedelta(days=5 * 366)
# The night New York's clocks go back: 01:00-01:59 comes twice, and fold=1 is the second time.
NEW_YORK = ZoneInfo("America/New_York")


def after(moment: datetime, expression: str, name: str, weight: float = 1.0, *, rule: str,
          **options):
    return call(F, expression, moment, name=name, weight=weight, rule=rule, **options)


CASES = [
    after(at(10, 0), "* * * * *", "every minute: the next whole minute", 1, rule=FIRST),
    # strictly after
    after(at(16, 30), "30 16 * * 1-5",
          "a moment that matches is not its own next run (Friday 16:30 -> Monday 16:30)", 3,
          rule=NOT_ITS_OWN),
    after(at(6, 0), "0 6 * * *",
          "the 06:00 risk report: at 06:00 exactly, the next run is tomorrow", 2, rule=NOT_ITS_OWN),
    after(datetime(2025, 12, 31, 23, 59), "59 23 31 12 *",
          "the last minute of the year is not its own next run", 1.5, timeout=YEARS,
          rule=NOT_ITS_OWN),
    # whole minutes
    after(at(10, 7, 42, 123456), "*/15 * * * *", "seconds and microseconds of the result are 0", 2,
          rule=WHOLE),
    after(at(10, 0, 59, 999999), "* * * * *", "a microsecond before 10:01 gives 10:01:00", 1.5,
          rule=WHOLE),
    after(at(9, 29, 30), "30 9 * * 1-5", "09:29:30 gives the 09:30 rebalance the same day", 1,
          rule=WHOLE),
    # time zones: the fields are read on after's own clock and the result keeps its tzinfo
    after(at(12, 0, tzinfo=timezone(timedelta(hours=-5))), "30 16 * * 1-5",
          "the result keeps after's tzinfo (a fixed offset, UTC-5)", 2, rule=ZONE),
    after(at(7, 0, tzinfo=ZoneInfo("Europe/London")), "0 6 * * *",
          "the result keeps after's tzinfo (Europe/London)", 1.5, rule=ZONE),
    after(datetime(2025, 12, 31, 23, 59, 59, tzinfo=timezone.utc), "0 0 * * *",
          "the result keeps after's tzinfo (UTC) across New Year", 1, rule=ZONE),
    after(datetime(2025, 11, 2, 1, 30, tzinfo=NEW_YORK, fold=1), "* * * * *",
          "fold plays no part: after the second 01:30 of the night the clocks go back, the "
          "next whole minute is 01:31 on the wall clock, with fold=0", 0.5, rule=FOLD),
    # minute first, hour second
    after(at(10, 0), "5 14 * * *", "the first field is the minute, the second the hour (14:05)", 2,
          rule=FIELDS),
    # day-of-week: 0 and 7 are Sunday, 1 is Monday
    after(at(10, 0), "0 9 * * 1", "day-of-week 1 is Monday (Python's weekday() says 0)", 2,
          rule=FIELDS),
    after(at(10, 0), "0 10 * * 6", "day-of-week 6 is Saturday", 1, rule=FIELDS),
    after(at(10, 0), "0 9 * * 0", "day-of-week 0 is Sunday", 1.5, rule=FIELDS),
    after(at(10, 0), "0 9 * * 7", "day-of-week 7 is Sunday too", 1.5, rule=FIELDS),
    after(at(17, 45), "*/20 9-17 * * 1-5", "a Friday evening waits for Monday 09:00", 1,
          rule=FIRST),
    # both day fields must match (the lab's rule, not cron's either-day quirk)
    after(datetime(2025, 1, 1), "0 0 13 * 5",
          "day-of-month and day-of-week must both match: the next Friday the 13th", 3,
          timeout=YEARS, rule=BOTH),
    after(datetime(2025, 1, 1), "0 12 1 * 1",
          "both must match: the next 1st of a month that is a Monday", 2, timeout=YEARS, rule=BOTH),
    # month ends and leap years
    after(datetime(2025, 4, 15), "0 0 31 * *", "the 31st skips months that have 30 days", 2,
          timeout=YEARS, rule=FIRST),  # six weeks away: "months away" in the notebook
    after(datetime(2025, 1, 31, 12, 0), "0 0 1 * *", "from the end of January to 1 February", 1,
          rule=FIRST),
    after(datetime(2024, 2, 28, 9, 0), "30 8 28-31 * *",
          "29 February of a leap year is a day like any other", 1.5, rule=FIRST),
    after(datetime(2025, 3, 1), "0 0 29 2 *", "the next 29 February after March 2025 is in 2028",
          2.5, timeout=YEARS, rule=FIRST),
    after(datetime(2024, 2, 29, 12, 0), "0 12 29 2 *",
          "from one 29 February to the next, four years later", 1, timeout=YEARS, rule=FIRST),
    after(datetime(2024, 2, 29, 10, 0), "0 12 * * *",
          "a search that starts on 29 February (five years later has no 29 February)", 1,
          rule=FIVE_YEARS),
    # year rollover
    after(datetime(2025, 6, 1), "0 0 1 1 *", "New Year's Day: the search rolls into the next year",
          2, timeout=YEARS, rule=FIRST),
    after(datetime(2025, 2, 28, 23, 59), "0 0 * 2 *",
          "after February's last minute, the next February is a year away", 1, timeout=YEARS,
          rule=FIRST),
    # nothing within five years: ValueError, never a loop that does not end
    after(datetime(2025, 1, 1), "0 0 30 2 *",
          "an expression that never fires (30 February) raises ValueError", 3, timeout=YEARS,
          rule=FIVE_YEARS),
    after(datetime(2025, 1, 1), "0 0 29 2 1",
          "no Monday 29 February within five years (the next is in 2044) raises ValueError", 1,
          timeout=YEARS, rule=FIVE_YEARS),
    # the five-year limit is exact: after + timedelta(days=5 * 366) is still searched
    after(BOUNDARY, "0 0 29 2 1",
          "a run exactly 5 * 366 days after `after` is still found (the next Monday 29 February)",
          1, rule=FIVE_YEARS, timeout=YEARS),
    after(BOUNDARY - timedelta(minutes=1), "0 0 29 2 1",
          "a run one minute more than 5 * 366 days away is not: ValueError", 1, rule=FIVE_YEARS,
          timeout=YEARS),
    # a bad expression is a ValueError too
    after(at(10, 0), "0 6 * *", "an expression with four fields raises ValueError", 0.5, rule=BAD),
    after(at(10, 0), "61 * * * *", "minute 61 raises ValueError", 0.5, rule=BAD),
]
