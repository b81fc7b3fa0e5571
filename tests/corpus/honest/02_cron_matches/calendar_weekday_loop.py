# Honest: a loop over (name, text, low, high) that parses every field into a dict first,
# then compares field by field and returns False at the first miss; the day of the week
# comes from calendar.weekday (Monday 0), shifted to cron's numbering, and a 7 in the
# field matches Sunday too. Uses the student's own partition parser from notebook 01.
# ruff: noqa: F821, B905 (datetime and parse_cron_field come from the notebook)
# notebook: 02_cron_matches
# answers-from: honest/01_parse_cron_field/partition_and_union
# %% answer_cron_matches
import calendar


def cron_matches(expression: str, when: datetime) -> bool:
    """True when all five fields of the cron expression select the moment `when`."""
    texts = expression.split()
    if len(texts) != 5:
        raise ValueError(f"{expression!r} should have exactly 5 fields, not {len(texts)}")
    layout = [("minute", 0, 59), ("hour", 0, 23), ("day", 1, 31), ("month", 1, 12),
              ("weekday", 0, 7)]
    allowed = {}
    for (name, low, high), text in zip(layout, texts):
        allowed[name] = parse_cron_field(text, low, high)
    cron_day = (calendar.weekday(when.year, when.month, when.day) + 1) % 7
    moment = {"minute": when.minute, "hour": when.hour, "day": when.day,
              "month": when.month, "weekday": cron_day}
    for name, _, _ in layout:
        if moment[name] in allowed[name]:
            continue
        if name == "weekday" and cron_day == 0 and 7 in allowed[name]:
            continue
        return False
    return True
