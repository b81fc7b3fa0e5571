# Bug: A reversed range is "helpfully" swapped: "5-1" selects 1..5 instead of being rejected.
# notebook: 01_parse_cron_field
# loses: test_parse_cron_field
# %% answer_parse_cron_field
def parse_cron_field(field: str, low: int, high: int) -> list[int]:
    """The sorted values that one cron field selects out of low..high (both included)."""
    if not field:
        raise ValueError("empty field")

    def value_of(text):
        if not text.isdigit() or not text.isascii():
            raise ValueError(f"{text!r} is not a whole number")
        if int(text) < low or int(text) > high:
            raise ValueError(f"{text} is outside {low}-{high}")
        return int(text)

    out = set()
    for item in field.split(","):
        if not item:
            raise ValueError(f"empty item in {field!r}")
        if "/" in item:
            base, step_text = item.split("/", 1)
            if not step_text.isdigit() or not step_text.isascii() or int(step_text) == 0:
                raise ValueError(f"bad step in {item!r}")
            step = int(step_text)
        else:
            base, step = item, None
        if base == "*":
            lo, hi = low, high
        elif "-" in base:
            a, b = base.split("-", 1)
            lo, hi = sorted((value_of(a), value_of(b)))
        else:
            lo = value_of(base)
            hi = high if step else lo
        out.update(range(lo, hi + 1, step or 1))
    return sorted(out)
