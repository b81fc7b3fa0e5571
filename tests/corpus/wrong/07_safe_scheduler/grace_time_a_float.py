# Bug: misfire_grace_time is worked out with timedelta(...).total_seconds(), a float (1680.0),
# where the notebook asks for a whole number of seconds, an int.
# ruff: noqa: F821, E501, B905 (the other names come from the notebook's setup cells)
# notebook: 07_safe_scheduler
# loses: test_scheduling
# %% answer_scheduling
def scheduler_settings(job_id: str, minute: int, freshness_minutes: int, runtime_minutes: int,
                       zone: str) -> dict:
    """Keyword arguments for APScheduler's add_job: an hourly cron trigger at `minute`."""
    if not 0 <= minute <= 59:
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
    return {"id": job_id, "trigger": "cron", "minute": minute, "timezone": zone,
            "max_instances": 1, "coalesce": True,
            "misfire_grace_time": timedelta(
                minutes=min(freshness_minutes - runtime_minutes, 60)).total_seconds(),
            "replace_existing": True}
def local_label(moment: datetime, zone: str = "Asia/Karachi") -> str:
    """How a stored UTC moment is shown to people: 'YYYY-MM-DD HH:MM ZONE' in the local zone."""
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise ValueError(f"{moment!r} has no time zone; stored times are aware UTC datetimes")
    return moment.astimezone(ZoneInfo(zone)).strftime("%Y-%m-%d %H:%M %Z")
def scheduled_tick(clock: Clock, name: str, config: dict, run, zone: str = "Asia/Karachi",
                   period_minutes: int = 60) -> dict:
    """What the scheduler calls: read the clock once, build the Job, run it, report."""
    fired_at = clock.now()  # the one timestamp of this run; everything below derives from it
    window_start, window_end = window_for(fired_at, period_minutes)
    result = run(Job(name, window_start, window_end, config))
    return {"fired_at": fired_at.astimezone(UTC), "window": (window_start, window_end),
            "shown": local_label(fired_at, zone), "result": result}
