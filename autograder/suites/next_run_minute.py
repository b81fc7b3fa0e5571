"""Hidden tests for next_run_minute, the warm-up of notebook 03 (10 points).

Friday 4 July 2025 unless a case says otherwise. Every set is non-empty and in range.
"""

from datetime import datetime

from autograder.suite import call

F = "next_run_minute"


# The rules of the exercise section, word for word.
FIRST = ("Return the first whole minute **strictly after** `after` whose minute is in `minutes` "
         "and whose hour is in `hours`.")
ANY = "`None` means *any* (like `*`)."
WHOLE = "The result has seconds and microseconds 0."


def after(moment: datetime, minutes: set[int] | None, hours: set[int] | None, name: str,
          weight: float = 1.0, *, rule: str):
    return call(F, minutes, hours, moment, name=name, weight=weight, rule=rule)


FRIDAY = datetime(2025, 7, 4)


def at(hour: int, minute: int, second: int = 0, microsecond: int = 0) -> datetime:
    return FRIDAY.replace(hour=hour, minute=minute, second=second, microsecond=microsecond)


CASES = [
    # the first set is minutes, the second hours
    after(at(10, 0), {5}, {14}, "minute 5 of hour 14 is 14:05, not 05:14", 2, rule=FIRST),
    after(at(4, 0), {14}, {5}, "minute 14 of hour 5 is 05:14, not 14:05", 1, rule=FIRST),
    # strictly after
    after(at(14, 5), {5}, {14}, "a moment that matches is not its own next run: 14:05 -> tomorrow",
          2, rule=FIRST),
    after(at(11, 0), {0}, None, "on the hour, the next 'minute 0' is the next hour", 1, rule=FIRST),
    # whole minutes
    after(at(10, 0), None, None, "None and None: the next whole minute", 1, rule=ANY),
    after(at(10, 0, 30, 500000), None, None, "seconds and microseconds of the result are 0", 1.5,
          rule=WHOLE),
    after(at(16, 29, 59, 999999), {30}, {16}, "one microsecond before 16:30 gives 16:30:00", 1,
          rule=WHOLE),
    # None means any
    after(at(10, 15, 20), {0, 30}, None, "minutes only: any hour will do", 1, rule=ANY),
    after(at(8, 30), None, {9}, "hours only: the first minute of hour 9 is 09:00", 1, rule=ANY),
    after(at(9, 59), None, {9}, "hours only: after 09:59 the next 09:xx is tomorrow", 1, rule=ANY),
    # rolling over into the next day, month, year and a leap day
    after(at(17, 46), {0, 15, 30, 45}, {9, 17},
          "after the last run of the day, the next day's first", 1, rule=FIRST),
    after(datetime(2025, 12, 31, 23, 59, 30), {0}, {0},
          "midnight rolls over into the next day, month and year", 1.5, rule=FIRST),
    after(datetime(2024, 2, 28, 23, 59), {59}, {23}, "into 29 February of a leap year", 1,
          rule=FIRST),
    after(datetime(2025, 2, 28, 23, 59), {0}, {0}, "from 28 February to 1 March in a common year",
          0.5, rule=FIRST),
]
