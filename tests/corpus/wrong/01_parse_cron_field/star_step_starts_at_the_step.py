# Bug: */n is read as "every n-th value, the first at n": */15 on minutes gives 15, 30, 45
# and leaves out 0, and */7 on days starts at 7.
# notebook: 01_parse_cron_field
# loses: test_parse_cron_field
# %% answer_parse_cron_field
def parse_cron_field(field: str, low: int, high: int) -> list[int]:
    """The sorted values that one cron field selects out of low..high (both included)."""
    def number(text: str, item: str) -> int:
        if not (text.isascii() and text.isdigit()):
            raise ValueError(f"{text!r} in {item!r} is not a whole number")
        value = int(text)
        if not low <= value <= high:
            raise ValueError(f"{value} in {item!r} is outside {low}-{high}")
        return value

    if field == "":
        raise ValueError("the field is empty")
    selected: set[int] = set()
    for item in field.split(","):
        if item == "":
            raise ValueError(f"empty item in field {field!r}")
        base, has_step, step_text = item.partition("/")
        step = 1
        if has_step:
            if not (step_text.isascii() and step_text.isdigit()) or int(step_text) == 0:
                raise ValueError(f"step {step_text!r} in {item!r} is not a positive whole number")
            step = int(step_text)
        if base == "*":
            start, end = (step if has_step else low), high  # */15: at 15, 30, 45
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
