# Honest: the fields split with a regular expression on runs of whitespace after strip();
# cron's day of the week read from strftime("%w") (Sunday is 0 there too) and 7 folded to
# 0 with % 7; all five comparisons made with all() over a zip. Uses the student's own
# try/int parser from notebook 01.
# ruff: noqa: F821, B905 (datetime and parse_cron_field come from the notebook)
# notebook: 02_cron_matches
# answers-from: honest/01_parse_cron_field/try_int_with_guards
# %% answer_cron_matches
import re

BOUNDS = ((0, 59), (0, 23), (1, 31), (1, 12), (0, 7))


def cron_matches(expression: str, when: datetime) -> bool:
    fields = re.split(r"\s+", expression.strip())
    if len(fields) != 5:
        raise ValueError(f"expected five fields separated by spaces, got {expression!r}")
    selected = [parse_cron_field(text, low, high) for text, (low, high) in zip(fields, BOUNDS)]
    selected[4] = [day % 7 for day in selected[4]]
    parts = (when.minute, when.hour, when.day, when.month, int(when.strftime("%w")))
    return all(part in values for part, values in zip(parts, selected))
