# Honest: str.partition splits off the step and then the range, each item becomes a
# range(), and the ranges are merged with set union; the checks are done in the order
# the notebook lists them, with messages that quote the item.
# notebook: 01_parse_cron_field
# %% answer_parse_cron_field
def parse_cron_field(field: str, low: int, high: int) -> list[int]:
    """The sorted values that one cron field selects out of low..high (both included)."""

    def number(text: str, item: str) -> int:
        if not (text.isdigit() and text.isascii()):
            raise ValueError(f"{text!r} in the item {item!r} is not a whole number")
        return int(text)

    def item_range(item: str) -> range:
        if not item:
            raise ValueError(f"the field {field!r} has an empty item")
        span, slash, step_text = item.partition("/")
        step = number(step_text, item) if slash else 1
        if step < 1:
            raise ValueError(f"the step of {item!r} must be 1 or more")
        if span == "*":
            return range(low, high + 1, step)
        start_text, dash, end_text = span.partition("-")
        start = number(start_text, item)
        end = number(end_text, item) if dash else (high if slash else start)
        for value in (start, end):
            if value < low or value > high:
                raise ValueError(f"{value} in {item!r} is not within {low}-{high}")
        if start > end:
            raise ValueError(f"the range {span!r} goes backwards")
        return range(start, end + 1, step)

    values: set[int] = set()
    for item in field.split(","):
        values |= set(item_range(item))
    return sorted(values)
