"""Hidden tests for cron_matches (notebook 02, 25 points).

Each case asks about moments that match and moments that do not, or about one bad expression
(`scoring.score` pays a rejection only when enough valid cases are right too), so no constant
answer earns points. Moments are in March 2026 unless a
case says otherwise: Monday 9 March to Sunday 15 March, with Friday the 13th in the middle.
"""

from datetime import datetime, timezone
from zoneinfo import ZoneInfo

from autograder.suite import Case, call

MON = datetime(2026, 3, 9, 9, 0)
TUE = datetime(2026, 3, 10, 9, 0)
WED = datetime(2026, 3, 11, 9, 0)
THU = datetime(2026, 3, 12, 9, 0)
FRI_13 = datetime(2026, 3, 13, 9, 0)
SAT = datetime(2026, 3, 14, 9, 0)
SUN = datetime(2026, 3, 15, 9, 0)
FRI_20 = datetime(2026, 3, 20, 9, 0)
NEW_YORK = ZoneInfo("America/New_York")


def at(moment: datetime, *, hour: int | None = None, minute: int | None = None,
       second: int | None = None, microsecond: int | None = None) -> datetime:
    """`moment` with the given parts of its time of day changed."""
    return moment.replace(hour=moment.hour if hour is None else hour,
                          minute=moment.minute if minute is None else minute,
                          second=moment.second if second is None else second,
                          microsecond=moment.microsecond if microsecond is None else microsecond)


def _moment_text(moment: datetime) -> str:
    text = f"{moment:%a %Y-%m-%d %H:%M:%S}"
    if moment.microsecond:
        text += f".{moment.microsecond:06d}"
    if moment.tzinfo is not None:
        text += f" {moment.tzname()}"
    return text


# The rules of the exercise section, word for word.
MATCH = "Return `True` when every field of `expression` selects `when`, and `False` otherwise."
FIELDS = "minute 0-59, hour 0-23, day of month 1-31, month 1-12, day of week 0-7"
SPACES = "separated by whitespace (one or more spaces or tabs)"
AROUND = "Whitespace around the expression, a trailing newline included, is ignored."
AS_IN_01 = ("Each field means what it means in notebook 01 (a star, values, ranges, steps and "
            "lists), on its own range.")
NAMES = "Fields hold numbers only: names such as `MON` or `JAN` raise `ValueError`."
SUNDAY = "Day of week 0 and 7 are both Sunday; 1 is Monday, ..., 6 is Saturday."
BOTH = "The lab's *both* rule: day of month **and** day of week must both select the day."
SECONDS = "Seconds and microseconds of `when` are ignored."
OWN_CLOCK = "A `when` with a time zone is read on its own clock (`when.hour` as it is)."
COUNT = "Raise `ValueError` for a wrong number of fields (4, 6, none ...)"
BAD_FIELD = "and for any bad field"
EVERY_MOMENT = "**even when an earlier field already rules the moment out**"


def answers(expression: str, moments: list[datetime], name: str, weight: float = 1.0, *,
            rule: str) -> Case:
    """cron_matches(expression, when) for each moment, compared as a list of answers."""
    shown = ", ".join(_moment_text(m) for m in moments)
    return Case(name=name, probe="cron_matches.at", args=(expression, moments), weight=weight,
                shows=f"cron_matches({expression!r}, when) for when = {shown}", rule=rule)


def rejects(bad: str, when: datetime, name: str, weight: float = 1.0, *, rule: str) -> Case:
    """`bad` must raise ValueError at this moment."""
    return call("cron_matches", bad, when, name=name, weight=weight, rule=rule,
                shows=f"cron_matches({bad!r}, {_moment_text(when)})")


WEEK = [MON, TUE, WED, THU, FRI_13, SAT, SUN]

CASES = [
    # whole moments
    answers("* * * * *", [datetime(2026, 3, 10, 13, 37), datetime(2026, 3, 15, 0, 0),
                          datetime(2028, 2, 29, 23, 59)], "five stars match any moment", 0.5,
            rule=MATCH),
    answers("30 9 * * 1-5", [at(MON, minute=30), at(SAT, minute=30), at(MON, minute=31),
                             at(MON, hour=10, minute=30)],
            "the weekday 09:30 rebalance fires on Monday 09:30, not on Saturday, at 09:31 or "
            "at 10:30", 2, rule=MATCH),
    answers("0 6 * * 1-5", [at(FRI_13, hour=6), at(SUN, hour=6), at(FRI_13, hour=18)],
            "the 06:00 risk report fires on Friday at 06:00, not on Sunday or at 18:00",
            rule=MATCH),
    # minute first, hour second
    answers("5 6 * * *", [at(TUE, hour=6, minute=5), at(TUE, hour=5, minute=6)],
            "'5 6 * * *' fires at 06:05, not at 05:06 (minute and hour swapped)", 2, rule=FIELDS),
    answers("30 9 * * *", [at(TUE, minute=30), at(TUE, hour=9, minute=9)],
            "the first field is the minute, the second the hour", rule=FIELDS),
    # day-of-week numbering: 0 = Sunday
    answers("0 9 * * 1", [MON, TUE, SUN], "day-of-week 1 is Monday, not Tuesday or Sunday", 2,
            rule=SUNDAY),
    answers("0 9 * * 0", [SUN, SAT, MON], "day-of-week 0 is Sunday, not Saturday or Monday", 2,
            rule=SUNDAY),
    answers("0 9 * * 5", [FRI_13, SAT, THU],
            "day-of-week 5 is Friday, not Saturday (Python's weekday() counts from Monday)", 2,
            rule=SUNDAY),
    answers("0 9 * * 6", [SAT, FRI_13, SUN], "day-of-week 6 is Saturday", rule=SUNDAY),
    answers("0 9 * * 1-5", WEEK, "'1-5' selects Monday to Friday over a whole week", 1.5,
            rule=AS_IN_01),
    # 7 is Sunday too
    answers("0 9 * * 7", [SUN, SAT, MON], "day-of-week 7 is Sunday", 2, rule=SUNDAY),
    answers("0 9 * * 6-7", [SAT, SUN, FRI_13, MON],
            "a weekday range that ends at 7 includes Sunday", rule=SUNDAY),
    answers("0 9 * * 0,7", [SUN, MON], "0 and 7 together still match Sunday", 0.5, rule=SUNDAY),
    answers("0 9 * * 1-7", [MON, SUN, at(SUN, hour=10)], "1-7 selects every day", 0.5, rule=SUNDAY),
    # both day fields must match (the lab's rule), not either (cron's quirk)
    answers("0 9 13 * 5", [FRI_13, FRI_20],
            "'0 9 13 * 5' fires on Friday the 13th, not on a Friday that is not the 13th "
            "(both days must match)", 2, rule=BOTH),
    answers("0 9 13 * 5", [datetime(2026, 2, 13, 9, 0), datetime(2026, 1, 13, 9, 0)],
            "'0 9 13 * 5' fires on Friday 13 February, not on Tuesday 13 January "
            "(both days must match)", 2, rule=BOTH),
    answers("0 0 1-7 * 1", [datetime(2026, 3, 2), datetime(2026, 3, 9), datetime(2026, 3, 4)],
            "'0 0 1-7 * 1' fires on the first Monday only, not the second Monday or the first "
            "Wednesday", 1.5, rule=BOTH),
    answers("0 9 * * 5", [FRI_13, THU, FRI_20],
            "a star day-of-month does not make Thursday match day-of-week 5", rule=BOTH),
    answers("0 9 13 * *", [FRI_13, FRI_20, datetime(2026, 1, 13, 9, 0)],
            "a star day-of-week does not make the 20th match day-of-month 13", rule=BOTH),
    # day-of-month and month count from 1
    answers("0 0 1 1 *", [datetime(2026, 1, 1), datetime(2026, 2, 1), datetime(2026, 1, 2)],
            "day 1 of month 1 is New Year's Day, not 1 February or 2 January", rule=FIELDS),
    answers("0 0 31 12 *", [datetime(2026, 12, 31), datetime(2026, 12, 30)],
            "day 31 of month 12 is New Year's Eve", rule=FIELDS),
    answers("0 0 * 1 *", [datetime(2026, 1, 15), datetime(2026, 2, 1), datetime(2026, 12, 1)],
            "month 1 is January, not February or December", rule=FIELDS),
    answers("0 0 * 6-8 *", [datetime(2026, 7, 15), datetime(2026, 9, 15)],
            "a month range selects July, not September", 0.5, rule=AS_IN_01),
    answers("0 0 29 2 *", [datetime(2028, 2, 29), datetime(2026, 3, 1)],
            "the 29th of February in a leap year", 0.5, rule=FIELDS),
    # seconds and microseconds are ignored
    answers("30 9 * * *", [at(TUE, minute=30, second=59, microsecond=999999),
                           at(TUE, minute=31)],
            "09:30:59.999999 is still in minute 09:30", 2, rule=SECONDS),
    answers("*/15 * * * *", [datetime(2026, 3, 10, 10, 45, 30), datetime(2026, 3, 10, 10, 46)],
            "seconds are ignored (10:45:30 matches '*/15')", rule=SECONDS),
    answers("0 6 * * *", [datetime(2026, 3, 10, 6, 0, 0, 1),
                          datetime(2026, 3, 10, 5, 59, 59, 999999)],
            "microseconds are ignored", rule=SECONDS),
    # whitespace
    answers("30  9\t* *  *", [at(TUE, minute=30), at(TUE, minute=31)],
            "fields may be separated by several spaces or a tab", 0.75, rule=SPACES),
    answers("  30 9 * * *\n", [at(TUE, minute=30), at(TUE, minute=31)],
            "spaces around the expression are ignored", 0.5, rule=AROUND),
    # lists, ranges and steps in several fields
    answers("0,30 9-16 * * 1-5", [datetime(2026, 3, 10, h, m) for h, m in
                                  [(16, 30), (17, 0), (9, 0), (9, 15), (8, 30)]],
            "'0,30 9-16 * * 1-5' fires on the hour and half hour from 09:00 to 16:30", 1.5,
            rule=AS_IN_01),
    answers("*/15 9-17/2 * * *", [datetime(2026, 3, 10, 11, 45), datetime(2026, 3, 10, 10, 45)],
            "'*/15 9-17/2 * * *' fires at 11:45, not at 10:45", 0.75, rule=AS_IN_01),
    answers("0 */6 * * *", [datetime(2026, 3, 10, 18, 0), datetime(2026, 3, 10, 19, 0)],
            "'0 */6 * * *' fires at 18:00, not at 19:00", 0.5, rule=AS_IN_01),
    answers("0 0 */10 * *", [datetime(2026, 3, 21), datetime(2026, 3, 20)],
            "'*/10' on days selects the 21st, not the 20th", 0.5, rule=AS_IN_01),
    # a moment with a time zone is read on its own clock
    answers("30 16 * * *", [datetime(2026, 3, 10, 16, 30, tzinfo=NEW_YORK),
                            datetime(2026, 3, 10, 16, 30, tzinfo=timezone.utc),
                            datetime(2026, 3, 10, 20, 30, tzinfo=NEW_YORK)],
            "a moment with a time zone is read on its own clock", rule=OWN_CLOCK),
    # exactly five fields
    rejects("* * * *", TUE, "four fields are rejected", 1.5, rule=COUNT),
    rejects("0 * * * * *", TUE,
            "six fields (a seconds field in front, as in Quartz) are rejected", 1.5, rule=COUNT),
    rejects("30 9 * * * 2026", at(TUE, minute=30),
            "six fields (a year field at the end) are rejected", rule=COUNT),
    rejects("", TUE, "an empty expression is rejected", 0.5, rule=COUNT),
    rejects("*/5", TUE, "a single field is rejected", 0.5, rule=COUNT),
    # every field checked against its own range
    rejects("60 * * * *", at(TUE, minute=59), "minute 60 is rejected", rule=FIELDS),
    rejects("* 24 * * *", at(TUE, hour=23), "hour 24 is rejected", rule=FIELDS),
    rejects("* * 0 * *", datetime(2026, 3, 1, 9, 0),
            "day-of-month 0 is rejected (days count from 1)", 1.5, rule=FIELDS),
    rejects("* * 32 * *", datetime(2026, 3, 31, 9, 0),
            "day-of-month 32 is rejected", 0.75, rule=FIELDS),
    rejects("* * * 0 *", datetime(2026, 1, 13, 9, 0),
            "month 0 is rejected (months count from 1)", 1.5, rule=FIELDS),
    rejects("* * * 13 *", datetime(2026, 12, 31, 9, 0), "month 13 is rejected", rule=FIELDS),
    rejects("* * * * 8", SUN, "day-of-week 8 is rejected", 1.5, rule=FIELDS),
    rejects("*/0 * * * *", TUE, "a step of 0 is rejected", 0.5, rule=BAD_FIELD),
    rejects("5-1 * * * *", at(TUE, minute=3), "a reversed range is rejected", 0.5, rule=BAD_FIELD),
    rejects("a b c d e", TUE, "words are rejected", 0.5, rule=BAD_FIELD),
    rejects("0 9 * * MON", MON,
            "day names such as MON are not part of the lab's cron", 0.5, rule=NAMES),
    # a bad field is rejected whatever the moment
    rejects("0 9 * * 8", at(SUN, hour=10),
            "a bad day-of-week is rejected even when the hour does not match", 1.5,
            rule=EVERY_MOMENT),
    rejects("0 9 32 * *", at(TUE, hour=10),
            "a bad day-of-month is rejected even when the hour does not match", rule=EVERY_MOMENT),
    rejects("0 9 * * */0", at(TUE, hour=10),
            "a bad step is rejected even when the hour does not match", 0.75, rule=EVERY_MOMENT),
]
