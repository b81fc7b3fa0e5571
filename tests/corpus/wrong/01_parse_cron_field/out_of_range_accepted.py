# Bug: Values are never checked against low..high: "60" for minutes and "0" for days are accepted.
# notebook: 01_parse_cron_field
# loses: test_parse_cron_field
# %% answer_parse_cron_field
def parse_cron_field(field: str, low: int, high: int) -> list[int]:
    """The sorted values that one cron field selects out of low..high (both included)."""
    def number(text):
        if not text.isascii() or not text.isdigit():
            raise ValueError(f"not a whole number: {text!r}")
        return int(text)

    if field == "":
        raise ValueError("empty field")
    chosen = set()
    for item in field.split(","):
        if item == "":
            raise ValueError(f"empty item in {field!r}")
        base, slash, step_text = item.partition("/")
        step = number(step_text) if slash else 1
        if step == 0:
            raise ValueError(f"step 0 in {item!r}")
        if base == "*":
            start, end = low, high
        elif "-" in base:
            first, _, last = base.partition("-")
            start, end = number(first), number(last)
            if end < start:
                raise ValueError(f"reversed range in {item!r}")
        else:
            start = number(base)
            end = high if slash else start
        chosen.update(range(start, end + 1, step))
    return sorted(chosen)
