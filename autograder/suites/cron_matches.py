"""Hidden tests for cron_matches (notebook 02, 25 points).

The moments are in March 2026 unless a case says otherwise: Monday 9 March to Sunday 15 March,
with Friday the 13th in the middle.
"""

from datetime import datetime, timezone
from zoneinfo import ZoneInfo

from autograder.suite import Case, call

F = "cron_matches"

MON = datetime(2026, 3, 9, 9, 30)
TUE = datetime(2026, 3, 10, 9, 0)
THU = datetime(2026, 3, 12, 9, 0)
FRI_13 = datetime(2026, 3, 13, 9, 0)
SAT = datetime(2026, 3, 14, 9, 0)
SUN = datetime(2026, 3, 15, 9, 0)


def at(moment: datetime, **changes: int) -> datetime:
    return moment.replace(**changes)


def matches(expression: str, when: datetime, name: str, weight: float = 1.0) -> Case:
    return call(F, expression, when, name=name, weight=weight)


def rejects(bad: str, valid: str, when: datetime, name: str, weight: float = 1.0) -> Case:
    """`bad` must raise ValueError while `valid` still gets its answer at the same moment."""
    return Case(name=name, probe="cron_matches.rejects", args=(bad, valid, when), weight=weight,
                shows=f"cron_matches({bad!r}, {when.isoformat(sep=' ')}) next to the valid "
                      f"{valid!r}")


CASES = [
    # whole moments
    matches("* * * * *", datetime(2026, 3, 10, 13, 37), "five stars match any moment", 0.5),
    matches("30 9 * * 1-5", MON, "the weekday 09:30 rebalance fires on Monday at 09:30"),
    matches("30 9 * * 1-5", at(SAT, minute=30), "the weekday rebalance does not fire on Saturday"),
    matches("30 9 * * 1-5", at(MON, minute=31), "09:31 is not 09:30", 0.75),
    matches("30 9 * * 1-5", at(MON, hour=10), "10:30 is not 09:30", 0.75),
    matches("0 6 * * 1-5", at(FRI_13, hour=6), "the 06:00 risk report fires on Friday at 06:00"),
    # minute first, hour second
    matches("30 9 * * *", at(TUE, minute=30), "the first field is the minute, the second the hour"),
    matches("5 6 * * *", at(TUE, hour=6, minute=5), "'5 6 * * *' fires at 06:05"),
    matches("5 6 * * *", at(TUE, hour=5, minute=6),
            "'5 6 * * *' does not fire at 05:06 (minute and hour swapped)", 1.5),
    # day-of-week numbering: 0 = Sunday
    matches("0 9 * * 1", at(MON, minute=0), "day-of-week 1 is Monday", 1.5),
    matches("0 9 * * 1", TUE, "day-of-week 1 does not match Tuesday"),
    matches("0 9 * * 0", SUN, "day-of-week 0 is Sunday", 1.5),
    matches("0 9 * * 5", FRI_13, "day-of-week 5 is Friday"),
    matches("0 9 * * 5", SAT,
            "day-of-week 5 does not match Saturday (Python's weekday() counts from Monday)", 1.5),
    matches("0 9 * * 6", SAT, "day-of-week 6 is Saturday"),
    matches("0 9 * * 1-5", SUN, "Monday to Friday does not include Sunday"),
    # 7 is Sunday too
    matches("0 9 * * 7", SUN, "day-of-week 7 is Sunday", 2),
    matches("0 9 * * 7", SAT, "day-of-week 7 does not match Saturday", 0.75),
    matches("0 9 * * 6-7", SUN, "a weekday range that ends at 7 includes Sunday"),
    matches("0 9 * * 0,7", SUN, "0 and 7 together still match Sunday", 0.5),
    matches("0 9 * * 1-7", at(MON, minute=0), "1-7 includes Monday", 0.5),
    # both day fields must match (the lab's rule), not either (cron's quirk)
    matches("0 9 13 * 5", FRI_13, "'0 9 13 * 5' fires on Friday the 13th"),
    matches("0 9 13 * 5", datetime(2026, 3, 20, 9, 0),
            "'0 9 13 * 5' does not fire on a Friday that is not the 13th (both days must match)",
            2),
    matches("0 9 13 * 5", datetime(2026, 1, 13, 9, 0),
            "'0 9 13 * 5' does not fire on a 13th that is not a Friday (both days must match)", 2),
    matches("0 0 1-7 * 1", datetime(2026, 3, 2), "'0 0 1-7 * 1' fires on the first Monday"),
    matches("0 0 1-7 * 1", datetime(2026, 3, 9),
            "'0 0 1-7 * 1' does not fire on the second Monday"),
    matches("0 0 1-7 * 1", datetime(2026, 3, 4),
            "'0 0 1-7 * 1' does not fire on the first Wednesday"),
    matches("0 9 * * 5", THU, "a star day-of-month does not make Thursday match day-of-week 5"),
    matches("0 9 13 * *", datetime(2026, 3, 20, 9, 0),
            "a star day-of-week does not make the 20th match day-of-month 13"),
    # day-of-month and month count from 1
    matches("0 0 1 1 *", datetime(2026, 1, 1), "day 1 of month 1 is New Year's Day"),
    matches("0 0 31 12 *", datetime(2026, 12, 31), "day 31 of month 12 is New Year's Eve"),
    matches("0 0 * 1 *", datetime(2026, 2, 1), "month 1 is January, not February"),
    matches("0 0 * 6-8 *", datetime(2026, 7, 15), "a month range matches July", 0.5),
    matches("0 0 29 2 *", datetime(2028, 2, 29), "the 29th of February in a leap year", 0.5),
    # seconds and microseconds are ignored
    matches("30 9 * * 1-5", at(MON, second=59, microsecond=999999),
            "09:30:59.999999 is still in minute 09:30", 2),
    matches("*/15 * * * *", datetime(2026, 3, 10, 10, 45, 30),
            "seconds are ignored (10:45:30 matches '*/15')"),
    matches("0 6 * * *", datetime(2026, 3, 10, 6, 0, 0, 1), "microseconds are ignored"),
    # whitespace
    matches("30  9\t* *  1-5", MON, "fields may be separated by several spaces or a tab", 0.75),
    matches("  30 9 * * 1-5\n", MON, "spaces around the expression are ignored", 0.5),
    # lists, ranges and steps in several fields
    matches("0,30 9-16 * * 1-5", datetime(2026, 3, 10, 16, 30),
            "'0,30 9-16 * * 1-5' fires at 16:30", 0.75),
    matches("0,30 9-16 * * 1-5", datetime(2026, 3, 10, 17, 0),
            "'0,30 9-16 * * 1-5' does not fire at 17:00", 0.75),
    matches("*/15 9-17/2 * * *", datetime(2026, 3, 10, 11, 45),
            "'*/15 9-17/2 * * *' fires at 11:45", 0.75),
    matches("*/15 9-17/2 * * *", datetime(2026, 3, 10, 10, 45),
            "'*/15 9-17/2 * * *' does not fire at 10:45", 0.75),
    matches("0 */6 * * *", datetime(2026, 3, 10, 18, 0), "'0 */6 * * *' fires at 18:00", 0.5),
    matches("0 0 */10 * *", datetime(2026, 3, 21), "'*/10' on days selects the 21st", 0.5),
    matches("0 0 */10 * *", datetime(2026, 3, 20), "'*/10' on days does not select the 20th",
            0.5),
    # a moment with a time zone is read on its own clock
    matches("30 16 * * 1-5", datetime(2026, 3, 9, 16, 30, tzinfo=ZoneInfo("America/New_York")),
            "16:30 in New York matches '30 16 * * 1-5'", 0.5),
    matches("30 16 * * 1-5", datetime(2026, 3, 9, 16, 30, tzinfo=timezone.utc),
            "16:30 UTC matches '30 16 * * 1-5'", 0.5),
    # exactly five fields
    rejects("* * * *", "* * * * *", TUE, "four fields are rejected", 1.5),
    rejects("0 * * * * *", "0 * * * *", TUE,
            "six fields (a seconds field in front, as in Quartz) are rejected", 1.5),
    rejects("30 9 * * 1-5 2026", "30 9 * * 1-5", MON,
            "six fields (a year field at the end) are rejected"),
    rejects("", "* * * * *", TUE, "an empty expression is rejected", 0.5),
    rejects("*/5", "*/5 * * * *", TUE, "a single field is rejected", 0.5),
    # every field checked against its own range
    rejects("60 * * * *", "59 * * * *", at(TUE, minute=59), "minute 60 is rejected"),
    rejects("* 24 * * *", "* 23 * * *", at(TUE, hour=23), "hour 24 is rejected"),
    rejects("* * 0 * *", "* * 1 * *", datetime(2026, 3, 1, 9, 0),
            "day-of-month 0 is rejected (days count from 1)", 1.5),
    rejects("* * 32 * *", "* * 31 * *", datetime(2026, 3, 31, 9, 0),
            "day-of-month 32 is rejected", 0.75),
    rejects("* * * 0 *", "* * * 1 *", datetime(2026, 1, 13, 9, 0),
            "month 0 is rejected (months count from 1)", 1.5),
    rejects("* * * 13 *", "* * * 12 *", datetime(2026, 12, 31, 9, 0), "month 13 is rejected"),
    rejects("* * * * 8", "* * * * 7", SUN, "day-of-week 8 is rejected", 1.5),
    rejects("*/0 * * * *", "*/1 * * * *", TUE, "a step of 0 is rejected", 0.5),
    rejects("5-1 * * * *", "1-5 * * * *", at(TUE, minute=3), "a reversed range is rejected", 0.5),
    rejects("a b c d e", "* * * * *", TUE, "words are rejected", 0.5),
    rejects("0 9 * * MON", "0 9 * * 1", at(MON, minute=0),
            "day names such as MON are not part of the lab's cron", 0.5),
    # a bad field is rejected whatever the moment
    rejects("0 9 * * 8", "0 9 * * 7", at(SUN, hour=10),
            "a bad day-of-week is rejected even when the hour does not match", 1.5),
    rejects("0 9 32 * *", "0 9 31 * *", at(TUE, hour=10),
            "a bad day-of-month is rejected even when the hour does not match"),
    rejects("0 9 * * */0", "0 9 * * */1", at(TUE, hour=10),
            "a bad step is rejected even when the hour does not match", 0.75),
]
