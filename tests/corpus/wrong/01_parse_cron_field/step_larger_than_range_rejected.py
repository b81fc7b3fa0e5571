# Bug: A step larger than the range it counts over is rejected, but "*/60" on minutes selects
# only the start, [0].
# notebook: 01_parse_cron_field
# loses: test_parse_cron_field
# %% answer_parse_cron_field
def parse_cron_field(field: str, low: int, high: int) -> list[int]:
    """The sorted values that one cron field selects out of low..high (both included)."""
    def number(text, item):
        if not (text.isascii() and text.isdigit()):
            raise ValueError(f"{text!r} in {item!r} is not a whole number")
        value = int(text)
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
        if has_step and not (step_text.isascii() and step_text.isdigit()):
            raise ValueError(f"step {step_text!r} in {item!r} is not a whole number")
        step = int(step_text) if has_step else 1
        if step == 0:
            raise ValueError(f"step 0 in {item!r}")
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
        if has_step and step > end - start:
            raise ValueError(f"step {step} in {item!r} is larger than the range {start}-{end}")
        selected.update(range(start, end + 1, step))
    return sorted(selected)
