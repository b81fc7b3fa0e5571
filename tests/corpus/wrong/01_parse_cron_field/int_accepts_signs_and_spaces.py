# Bug: Numbers are checked with int() alone, which also takes "+5", " 5", "1_0" and "٣".
# notebook: 01_parse_cron_field
# loses: test_parse_cron_field
# %% answer_parse_cron_field
def parse_cron_field(field: str, low: int, high: int) -> list[int]:
    """The sorted values that one cron field selects out of low..high (both included)."""
    def number(text, item):
        try:
            value = int(text)
        except ValueError:
            raise ValueError(f"{text!r} in {item!r} is not a whole number") from None
        if not low <= value <= high:
            raise ValueError(f"{value} in {item!r} is outside {low}-{high}")
        return value

    if field == "":
        raise ValueError("the field is empty")
    selected = set()
    for item in field.split(","):
        if item == "":
            raise ValueError(f"empty item in field {field!r}")
        base, has_step, step_text = item.partition("/")
        step = 1
        if has_step:
            try:
                step = int(step_text)
            except ValueError:
                raise ValueError(f"step {step_text!r} in {item!r} is not a number") from None
            if step <= 0:
                raise ValueError(f"step {step} in {item!r} is not positive")
        if base == "*":
            start, end = low, high
        elif "-" in base:
            first, _, last = base.partition("-")
            start, end = number(first, item), number(last, item)
            if start > end:
                raise ValueError(f"range {base!r} in {item!r} is reversed")
        else:
            start = number(base, item)
            end = high if has_step else start
        selected.update(range(start, end + 1, step))
    return sorted(selected)
