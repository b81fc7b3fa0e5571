# Bug: scheduler_settings checks that a run is shorter than the freshness need but not that its
# runtime is 0 or more, so a runtime of -1 minute gives a grace time longer than the need.
# ruff: noqa: F821, E501, B905 (the other names come from the notebook's setup cells)
# notebook: 07_safe_scheduler
# loses: test_scheduling
# %% new:answer_scheduling
def scheduler_settings(job_id: str, minute: int, freshness_minutes: int, runtime_minutes: int,
                       zone: str) -> dict:
    """Keyword arguments for APScheduler's add_job: an hourly cron trigger at `minute`."""
    if minute not in range(60):
        raise ValueError(f"minute {minute} is outside 0-59")
    slack = freshness_minutes - runtime_minutes  # how late a start may still deliver fresh data
    if slack <= 0:
        raise ValueError(f"a {runtime_minutes}-minute run cannot deliver data within "
                         f"{freshness_minutes} minutes")
    try:
        ZoneInfo(zone)
    except ZoneInfoNotFoundError:
        raise ValueError(f"{zone!r} is not a time zone zoneinfo knows") from None
    return dict(id=job_id, trigger="cron", minute=minute, timezone=zone, max_instances=1,
                coalesce=True, misfire_grace_time=60 * min(slack, 60), replace_existing=True)
