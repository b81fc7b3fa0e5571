# Honest: reuses the worked example's `as_cron_days` and `moment_parts`, which the notebook
# defines in a setup cell before the example, and the student's own parser from notebook 01.
# ruff: noqa: F821, B905 (parse_cron_field, as_cron_days and moment_parts come from the notebook)
# notebook: 02_cron_matches
# answers-from: honest/01_parse_cron_field/regex_per_item
# %% answer_cron_matches
def cron_matches(expression, when):
    fields = expression.split()
    if len(fields) != 5:
        raise ValueError(f"a cron expression has five fields, {expression!r} has {len(fields)}")
    bounds = [(0, 59), (0, 23), (1, 31), (1, 12), (0, 7)]
    selected = [set(parse_cron_field(text, low, high)) for text, (low, high) in zip(fields, bounds)]
    selected[4] = as_cron_days(selected[4])
    return all(part in values for part, values in zip(moment_parts(when), selected))
