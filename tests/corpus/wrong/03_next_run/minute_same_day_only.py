# Bug: next_run_minute only looks at the rest of today, so it never rolls over to tomorrow.
# ruff: noqa: F821 (datetime, timedelta and parse_cron_field come from the notebook)
# notebook: 03_next_run
# loses: test_next_run_minute
# %% answer_next_run_minute
def next_run_minute(minutes, hours, after):
    for hour in sorted(hours) if hours is not None else range(24):
        for minute in sorted(minutes) if minutes is not None else range(60):
            candidate = after.replace(hour=hour, minute=minute, second=0, microsecond=0)
            if candidate > after:
                return candidate
    raise ValueError("no run left today")
