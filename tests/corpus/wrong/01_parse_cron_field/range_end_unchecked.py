# Bug: Only the start of a range is checked against low..high, so "10-70" selects 10..70.
# notebook: 01_parse_cron_field
# loses: test_parse_cron_field
# %% answer_parse_cron_field
import re

ITEM = re.compile(r"(\*|\d+)(?:-(\d+))?(?:/(\d+))?")


def parse_cron_field(field: str, low: int, high: int) -> list[int]:
    """The sorted values that one cron field selects out of low..high (both included)."""
    if field == "":
        raise ValueError("the field is empty")
    values = set()
    for item in field.split(","):
        found = ITEM.fullmatch(item) if item.isascii() else None
        if found is None:
            raise ValueError(f"cannot read item {item!r}")
        start_text, end_text, step_text = found.groups()
        if start_text == "*" and end_text is not None:
            raise ValueError(f"cannot read item {item!r}")
        step = int(step_text) if step_text is not None else 1
        if step == 0:
            raise ValueError(f"step 0 in {item!r}")
        if start_text == "*":
            start, end = low, high
        else:
            start = int(start_text)
            if not low <= start <= high:
                raise ValueError(f"{start} in {item!r} is outside {low}-{high}")
            if end_text is not None:
                end = int(end_text)
            else:
                end = high if step_text is not None else start
            if start > end:
                raise ValueError(f"range {item!r} is reversed")
        values.update(range(start, end + 1, step))
    return sorted(values)
