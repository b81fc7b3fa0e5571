# Bug: A step of 0 is not checked; the modulo test raises ZeroDivisionError, not ValueError.
# notebook: 01_parse_cron_field
# loses: test_parse_cron_field
# %% answer_parse_cron_field
def parse_cron_field(field: str, low: int, high: int) -> list[int]:
    """The sorted values that one cron field selects out of low..high (both included)."""
    def number(text):
        if not (text.isascii() and text.isdigit()):
            raise ValueError(f"{text!r} is not a whole number")
        return int(text)

    def in_range(value):
        if not low <= value <= high:
            raise ValueError(f"{value} is outside {low}-{high}")
        return value

    if field == "":
        raise ValueError("the field is empty")
    rules = []  # (start, end, step) for every item
    for item in field.split(","):
        if item == "":
            raise ValueError(f"empty item in {field!r}")
        base, slash, step_text = item.partition("/")
        step = number(step_text) if slash else 1
        if base == "*":
            start, end = low, high
        elif "-" in base:
            first, _, last = base.partition("-")
            start, end = in_range(number(first)), in_range(number(last))
            if start > end:
                raise ValueError(f"range {base!r} is reversed")
        else:
            start = in_range(number(base))
            end = high if slash else start
        rules.append((start, end, step))
    return [value for value in range(low, high + 1)
            if any(start <= value <= end and (value - start) % step == 0
                   for start, end, step in rules)]
