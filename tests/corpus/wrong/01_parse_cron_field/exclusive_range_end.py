# Bug: a-b ranges leave out b (range(a, b)): 1-5 skips Friday.
# notebook: 01_parse_cron_field
# loses: test_parse_cron_field
# %% answer_parse_cron_field
def parse_cron_field(field: str, low: int, high: int) -> list[int]:
    """The sorted values that one cron field selects out of low..high (both included)."""
    def whole(text):
        if not (text.isascii() and text.isdigit()):
            raise ValueError(f"{text!r} is not a whole number")
        value = int(text)
        if value < low or value > high:
            raise ValueError(f"{value} is outside {low}-{high}")
        return value

    if not field:
        raise ValueError("empty field")
    result = set()
    for item in field.split(","):
        if not item:
            raise ValueError(f"empty item in {field!r}")
        base, has_step, step_text = item.partition("/")
        if has_step and not (step_text.isascii() and step_text.isdigit() and int(step_text) > 0):
            raise ValueError(f"step {step_text!r} is not a positive whole number")
        step = int(step_text) if has_step else 1
        if base == "*":
            result.update(range(low, high + 1, step))
        elif "-" in base:
            a, _, b = base.partition("-")
            a, b = whole(a), whole(b)
            if a > b:
                raise ValueError(f"range {base!r} is reversed")
            result.update(range(a, b, step))
        elif has_step:
            result.update(range(whole(base), high + 1, step))
        else:
            result.add(whole(base))
    return sorted(result)
