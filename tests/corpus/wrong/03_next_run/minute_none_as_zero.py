# Bug: None is read as "minute 0" / "hour 0" instead of "any".
# ruff: noqa: F821 (datetime, timedelta and parse_cron_field come from the notebook)
# notebook: 03_next_run
# loses: test_next_run_minute
# %% answer_next_run_minute
def next_run_minute(minutes, hours, after):
    minutes = {0} if minutes is None else minutes
    hours = {0} if hours is None else hours
    moment = after.replace(second=0, microsecond=0) + timedelta(minutes=1)
    for _ in range(24 * 60):
        if moment.minute in minutes and moment.hour in hours:
            return moment
        moment += timedelta(minutes=1)
    raise ValueError("nothing matches")
