# Honest: each item is matched whole by one regular expression written with [0-9] (only ASCII
# digits) and re.fullmatch (so nothing may follow, not even a newline); the step is checked
# before the range, and a reversed range is reported without echoing the item.
# notebook: 01_parse_cron_field
# %% answer_parse_cron_field
import re

ITEM = re.compile(r"(?:(\*)|([0-9]+)(?:-([0-9]+))?)(?:/([0-9]*))?")


def parse_cron_field(field: str, low: int, high: int) -> list[int]:
    """The sorted values that one cron field selects out of low..high (both included)."""
    selected = set()
    for item in field.split(","):
        match = ITEM.fullmatch(item)
        if match is None:
            raise ValueError(f"cannot read the item {item!r} of the field {field!r}")
        star, first, last, step_text = match.groups()
        step = 1
        if step_text is not None:
            if step_text == "" or int(step_text) == 0:
                raise ValueError("a step must be a positive whole number")
            step = int(step_text)
        if star:
            start, end = low, high
        else:
            start = int(first)
            if last is not None:
                end = int(last)
            elif step_text is not None:
                end = high
            else:
                end = start
        if end < start:
            raise ValueError("a range must not run backwards")
        for value in (start, end):
            if not low <= value <= high:
                raise ValueError(f"{value} is outside the allowed values {low}-{high}")
        selected.update(range(start, end + 1, step))
    return sorted(selected)
