# Bug: A range step counts from 0 instead of from the range start: 3-20/5 gives 5, 10, 15, 20.
# notebook: 01_parse_cron_field
# loses: test_parse_cron_field
# %% answer_parse_cron_field
def parse_cron_field(field: str, low: int, high: int) -> list[int]:
    """The sorted values that one cron field selects out of low..high (both included)."""
    def number(text):
        if not (text.isascii() and text.isdigit()):
            raise ValueError(f"{text!r} is not a whole number")
        if not low <= int(text) <= high:
            raise ValueError(f"{text} is outside {low}-{high}")
        return int(text)

    if field == "":
        raise ValueError("the field is empty")
    selected = set()
    for item in field.split(","):
        if item == "":
            raise ValueError(f"empty item in {field!r}")
        base, slash, step_text = item.partition("/")
        step = 1
        if slash:
            if not (step_text.isascii() and step_text.isdigit()) or int(step_text) == 0:
                raise ValueError(f"bad step {step_text!r} in {item!r}")
            step = int(step_text)
        if base == "*":
            selected.update(range(low, high + 1, step))
            continue
        if "-" in base:
            first, _, last = base.partition("-")
            start, end = number(first), number(last)
            if start > end:
                raise ValueError(f"reversed range {base!r}")
        else:
            start = number(base)
            end = high if slash else start
        # every value in the range that is a multiple of the step
        selected.update(v for v in range(start, end + 1) if v % step == 0)
    return sorted(selected)
