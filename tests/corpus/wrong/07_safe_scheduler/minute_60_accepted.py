# Bug: scheduler_settings checks the minute against 0-60, so minute 60 (not a minute of any
# hour) is accepted.
# ruff: noqa: F821, E501 (the other names come from the notebook's setup cells)
# notebook: 07_safe_scheduler
# loses: test_scheduling
# %% new:answer_scheduling
def scheduler_settings(job_id: str, minute: int, freshness_minutes: int, runtime_minutes: int,
                       zone: str) -> dict:
    """Keyword arguments for APScheduler's add_job: an hourly cron trigger at `minute`."""
    if not 0 <= minute <= 60:
        raise ValueError(f"minute must be 0-59, got {minute}")
    if runtime_minutes < 0:
        raise ValueError(f"runtime_minutes must be 0 or more, got {runtime_minutes}")
    if freshness_minutes <= runtime_minutes:
        raise ValueError(f"a run takes {runtime_minutes} min, so it can never deliver data "
                         f"fresher than {freshness_minutes} min")
    try:
        ZoneInfo(zone)
    except (ZoneInfoNotFoundError, ValueError):
        raise ValueError(f"unknown time zone {zone!r}") from None
    # A later start delivers stale data, and after an hour the next run is due anyway.
    grace_minutes = min(freshness_minutes - runtime_minutes, 60)
    return {"id": job_id, "trigger": "cron", "minute": minute, "timezone": zone,
            "max_instances": 1, "coalesce": True, "misfire_grace_time": grace_minutes * 60,
            "replace_existing": True}

