# Bug: next_run_minute adds a minute to after without dropping its seconds and microseconds.
# ruff: noqa: F821 (datetime, timedelta and parse_cron_field come from the notebook)
# notebook: 03_next_run
# loses: test_next_run_minute
# %% answer_next_run_minute
def next_run_minute(minutes, hours, after):
    moment = after + timedelta(minutes=1)
    for _ in range(24 * 60):
        minute_ok = minutes is None or moment.minute in minutes
        hour_ok = hours is None or moment.hour in hours
        if minute_ok and hour_ok:
            return moment
        moment += timedelta(minutes=1)
    raise ValueError("nothing matches")
