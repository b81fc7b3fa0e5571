# Bug: Values are collected in a list, so overlapping items ("1-3,2-4") give duplicates.
# notebook: 01_parse_cron_field
# loses: test_parse_cron_field
# %% answer_parse_cron_field
def parse_cron_field(field: str, low: int, high: int) -> list[int]:
    """The sorted values that one cron field selects out of low..high (both included)."""
    def check(text):
        if not (text.isascii() and text.isdigit()):
            raise ValueError(f"{text!r} is not a whole number")
        if not low <= int(text) <= high:
            raise ValueError(f"{text} is outside {low}-{high}")
        return int(text)

    if not field:
        raise ValueError("the field is empty")
    values = []
    for item in field.split(","):
        if not item:
            raise ValueError(f"empty item in {field!r}")
        if "/" in item:
            base, step_text = item.split("/", 1)
            if not (step_text.isascii() and step_text.isdigit()) or step_text.strip("0") == "":
                raise ValueError(f"step {step_text!r} is not a positive whole number")
            step = int(step_text)
        else:
            base, step = item, 0
        if base == "*":
            first, last = low, high
        elif "-" in base:
            first, last = (check(part) for part in base.split("-", 1))
            if first > last:
                raise ValueError(f"range {base!r} is reversed")
        else:
            first = check(base)
            last = high if step else first
        values += list(range(first, last + 1, step or 1))
    values.sort()
    return values
