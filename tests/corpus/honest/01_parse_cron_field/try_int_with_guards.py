# Honest: numbers read with try/int(), guarded first against everything int() would accept
# that is not a plain whole number (signs, spaces, underscores, non-ASCII digits) by
# checking every character against string.digits; the values are collected in a list of
# flags, one per allowed value, and read back in order.
# notebook: 01_parse_cron_field
# %% answer_parse_cron_field
import string


def parse_cron_field(field: str, low: int, high: int) -> list[int]:
    """The sorted values that one cron field selects out of low..high (both included)."""

    def whole_number(text, what):
        if text == "" or any(ch not in string.digits for ch in text):
            raise ValueError(f"{what} {text!r} is not a plain whole number")
        try:
            return int(text)
        except ValueError:
            raise ValueError(f"{what} {text!r} is not a plain whole number") from None

    def in_range(value):
        if value < low or value > high:
            raise ValueError(f"value {value} is out of range {low}..{high}")
        return value

    if field == "":
        raise ValueError("the field is empty")
    chosen = [False] * (high - low + 1)
    for item in field.split(","):
        if item == "":
            raise ValueError(f"empty item in {field!r}")
        if "/" in item:
            what, step_text = item.split("/", 1)
            step = whole_number(step_text, "step")
            if step <= 0:
                raise ValueError(f"step {step} in {item!r} must be at least 1")
        else:
            what, step = item, None
        if what == "*":
            start, end = low, high
        elif "-" in what:
            parts = what.split("-")
            if len(parts) != 2:
                raise ValueError(f"{what!r} is not a range a-b")
            start = in_range(whole_number(parts[0], "range start"))
            end = in_range(whole_number(parts[1], "range end"))
            if start > end:
                raise ValueError(f"the range {what!r} is reversed")
        else:
            start = in_range(whole_number(what, "value"))
            end = high if step is not None else start
        for value in range(start, end + 1, step or 1):
            chosen[value - low] = True
    return [low + offset for offset, flag in enumerate(chosen) if flag]
