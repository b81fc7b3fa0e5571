"""Hidden tests for parse_cron_field (notebook 01, 25 points).

Each bad field is asked about next to a valid one, so a function that always raises ValueError
earns nothing for rejecting.
"""

from autograder.suite import Case, call

F = "parse_cron_field"


def field(text: str, low: int, high: int, name: str, weight: float = 1.0, **options):
    return call(F, text, low, high, name=name, weight=weight, **options)


def rejects(bad: str, valid: str, low: int, high: int, name: str, weight: float = 1.0,
            mentions: tuple[str, ...] = ()) -> Case:
    """`bad` must raise ValueError while `valid` still gets its values on the same range."""
    shows = f"{F}({bad!r}, {low}, {high}) next to the valid {F}({valid!r}, {low}, {high})"
    return Case(name=name, probe="parse_cron_field.rejects",
                args=(bad, valid, low, high, mentions), weight=weight, shows=shows)


CASES = [
    # stars
    field("*", 0, 59, "a star selects every minute 0-59"),
    field("*", 1, 31, "a star on day-of-month starts at 1, not 0"),
    field("*", 0, 7, "a star on day-of-week selects 0-7"),
    # single values
    field("30", 0, 59, "a single value"),
    field("0", 0, 23, "the lowest value is allowed"),
    field("59", 0, 59, "the highest value is allowed"),
    # ranges
    field("10-13", 0, 59, "a range includes both ends", weight=1.5),
    field("1-5", 0, 7, "weekdays 1-5 include Friday", weight=1.5),
    field("7-7", 0, 23, "a one-value range"),
    field("0-23", 0, 23, "a range over the whole field"),
    # steps
    field("*/15", 0, 59, "*/15 on minutes", weight=1.5),
    field("*/7", 1, 31, "a star step starts at the field's lowest value (1 for days)", weight=1.5),
    field("*/60", 0, 59, "a step larger than the field selects only the start"),
    field("3-20/5", 0, 59, "a range step counts from the range start, not from 0", weight=2),
    field("10-30/10", 0, 59, "a range step includes the end when it lands on it", weight=1.5),
    field("50/4", 0, 59, "a/n runs from a to the field's highest value", weight=2),
    field("6/6", 0, 23, "a/n on hours"),
    # lists
    field("0,30", 0, 59, "a list of two values"),
    field("45,0-10/5,5", 0, 59, "a list is sorted and without duplicates", weight=2),
    field("1-3,2-4", 1, 12, "overlapping ranges in a list count once", weight=1),
    field("5,0", 0, 7, "Sunday as 0 and as a list item", weight=0.5),
    # rejection of bad fields, each next to a valid field on the same range
    rejects("", "5", 0, 59, "an empty field is rejected", weight=0.75),
    rejects("1,,2", "1,2", 0, 59, "an empty item is rejected", weight=0.75),
    rejects("1,", "1", 0, 59, "a trailing comma is rejected", weight=0.5),
    rejects("x", "5", 0, 59, "a word is rejected", weight=0.5),
    rejects("1.5", "15", 0, 59, "a decimal is rejected", weight=0.5),
    rejects("-3", "3", 0, 59, "a negative number is rejected", weight=0.5),
    rejects("+5", "5", 0, 59, "a plus sign is not part of a whole number", weight=0.5),
    rejects(" 5", "5", 0, 59, "a space before a value is rejected", weight=0.5),
    rejects("\u0663", "3", 0, 59, "a digit from another script (Arabic-Indic \u0663) is rejected",
            weight=0.5),
    rejects("60", "59", 0, 59, "a minute of 60 is rejected", weight=0.75),
    rejects("0", "1", 1, 31, "a day of 0 is rejected", weight=0.75),
    rejects("1,61", "1,59", 0, 59, "a value out of range names itself in the message",
            weight=0.5, mentions=("61",)),
    rejects("5-1", "1-5", 0, 59, "a reversed range is rejected", weight=0.75),
    rejects("10-70", "10-59", 0, 59, "a range that ends out of range is rejected", weight=0.5),
    rejects("*/0", "*/1", 0, 59, "a step of 0 is rejected", weight=0.75),
    rejects("*/", "*", 0, 59, "a missing step is rejected", weight=0.5),
    rejects("/5", "*/5", 0, 59, "a step with nothing before it is rejected", weight=0.5),
    rejects("*/x", "*/5", 0, 59, "a step that is not a number is rejected", weight=0.5),
    rejects("1-5/0", "1-5/1", 0, 59, "a range step of 0 is rejected", weight=0.5),
    rejects("1-2-3", "1-3", 0, 59, "a range with two dashes is rejected", weight=0.5),
]
