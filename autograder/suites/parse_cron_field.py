"""Hidden tests for parse_cron_field (notebook 01, 25 points).

A bad field is asked about on its own; `scoring.score` pays a rejection only when enough valid
fields are right too (REJECTION_GATE), so a function that always raises earns nothing.
"""

from autograder.suite import Case, call

F = "parse_cron_field"

SORTED = "**sorted and without duplicates**"
LIST = "a list selects every value any of its items selects"
STAR = "`*` selects every value from `low` to `high`."
SINGLE = "`a` selects the single value a."
RANGE = "`a-b` selects a to b, both ends included."
STEP = ("A step `/n` keeps every n-th value, counting from the start of what it follows: `*/n` "
        "counts from `low`, `a-b/n` from a (up to b), and `a/n` runs from a up to `high`.")
LARGE_STEP = "A step may be larger than the range: `*/60` on minutes selects only `[0]`."
EMPTY = "an empty field (`\"\"`) or an empty item"
NOT_NUMBER = "something that is not a plain whole number"
TWO_DASHES = "a range that is not two plain whole numbers joined by one dash"
OUTSIDE = "a value outside `low..high`"
NAMED = "**for a value outside `low..high`, the message contains that value**"
REVERSED = "a reversed range (`\"5-1\"`)"
BAD_STEP = "a step that is not a positive whole number"
NO_START = "a step with nothing before it to count from"


def field(text: str, low: int, high: int, name: str, weight: float = 1.0, *, rule: str,
          **options) -> Case:
    return call(F, text, low, high, name=name, weight=weight, rule=rule, **options)


def rejects(bad: str, low: int, high: int, name: str, weight: float = 1.0, *, rule: str,
            mentions: tuple[str, ...] = ()) -> Case:
    """`bad` must raise ValueError (and its message mention each of `mentions`)."""
    return call(F, bad, low, high, name=name, weight=weight, rule=rule,
                message_contains=mentions)


CASES = [
    # stars
    field("*", 0, 59, "a star selects every minute 0-59", rule=STAR),
    field("*", 1, 31, "a star on day-of-month starts at 1, not 0", rule=STAR),
    field("*", 0, 7, "a star on day-of-week selects 0-7", rule=STAR),
    # single values
    field("30", 0, 59, "a single value", rule=SINGLE),
    field("0", 0, 23, "the lowest value is allowed", rule=SINGLE),
    field("59", 0, 59, "the highest value is allowed", rule=SINGLE),
    # ranges
    field("10-13", 0, 59, "a range includes both ends", weight=1.5, rule=RANGE),
    field("1-5", 0, 7, "weekdays 1-5 include Friday", weight=1.5, rule=RANGE),
    field("7-7", 0, 23, "a one-value range", rule=RANGE),
    field("0-23", 0, 23, "a range over the whole field", rule=RANGE),
    # steps
    field("*/15", 0, 59, "*/15 on minutes", weight=1.5, rule=STEP),
    field("*/7", 1, 31, "a star step starts at the field's lowest value (1 for days)",
          weight=1.5, rule=STEP),
    field("*/60", 0, 59, "a step larger than the field selects only the start",
          rule=LARGE_STEP),
    field("3-20/5", 0, 59, "a range step counts from the range start, not from 0", weight=2,
          rule=STEP),
    field("10-30/10", 0, 59, "a range step includes the end when it lands on it", weight=1.5,
          rule=STEP),
    field("50/4", 0, 59, "a/n runs from a to the field's highest value", weight=2, rule=STEP),
    field("6/6", 0, 23, "a/n on hours", rule=STEP),
    # lists
    field("0,30", 0, 59, "a list of two values", rule=LIST),
    field("45,0-10/5,5", 0, 59, "a list is sorted and without duplicates", weight=2, rule=SORTED),
    field("1-3,2-4", 1, 12, "overlapping ranges in a list count once", weight=1, rule=SORTED),
    field("5,0", 0, 7, "Sunday as 0 and as a list item", weight=0.5, rule=SORTED),
    # bad fields
    rejects("", 0, 59, "an empty field is rejected", weight=0.75, rule=EMPTY),
    rejects("1,,2", 0, 59, "an empty item is rejected", weight=0.75, rule=EMPTY),
    rejects("1,", 0, 59, "a trailing comma is rejected", weight=0.5, rule=EMPTY),
    rejects("x", 0, 59, "a word is rejected", weight=0.5, rule=NOT_NUMBER),
    rejects("1.5", 0, 59, "a decimal is rejected", weight=0.5, rule=NOT_NUMBER),
    rejects("-3", 0, 59, "a negative number is rejected", weight=0.5, rule=NOT_NUMBER),
    rejects("+5", 0, 59, "a plus sign is not part of a whole number", weight=0.5,
            rule=NOT_NUMBER),
    rejects(" 5", 0, 59, "a space before a value is rejected", weight=0.5, rule=NOT_NUMBER),
    rejects("\u0663", 0, 59, "a digit from another script (Arabic-Indic \u0663) is rejected",
            weight=0.5, rule=NOT_NUMBER),
    rejects("60", 0, 59, "a minute of 60 is rejected", weight=0.75, rule=OUTSIDE),
    rejects("0", 1, 31, "a day of 0 is rejected", weight=0.75, rule=OUTSIDE),
    rejects("1,61", 0, 59, "a value out of range names itself in the message", weight=0.5,
            rule=NAMED, mentions=("61",)),
    rejects("5-1", 0, 59, "a reversed range is rejected", weight=0.75, rule=REVERSED),
    rejects("10-70", 0, 59, "a range that ends out of range is rejected", weight=0.5,
            rule=OUTSIDE),
    rejects("60/5", 0, 59, "an a/n that starts out of range is rejected", weight=0.5,
            rule=OUTSIDE),
    rejects("*/0", 0, 59, "a step of 0 is rejected", weight=0.75, rule=BAD_STEP),
    rejects("*/", 0, 59, "a missing step is rejected", weight=0.5, rule=BAD_STEP),
    rejects("/5", 0, 59, "a step with nothing before it is rejected", weight=0.5, rule=NO_START),
    rejects("*/x", 0, 59, "a step that is not a number is rejected", weight=0.5, rule=BAD_STEP),
    rejects("1-5/0", 0, 59, "a range step of 0 is rejected", weight=0.5, rule=BAD_STEP),
    rejects("1-2-3", 0, 59, "a range with two dashes is rejected", weight=0.5, rule=TWO_DASHES),
]
