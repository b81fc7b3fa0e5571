# Bug: scheduled_tick works out the window with window_for's default hour, whatever period
# the job runs at, so a 15-minute job covers the last hour.
# ruff: noqa: F821, E501 (the other names come from the notebook's setup cells)
# notebook: 07_safe_scheduler
# loses: test_scheduling
# %% new:answer_scheduling
def local_label(moment: datetime, zone: str = "Asia/Karachi") -> str:
    """How a stored UTC moment is shown to people: 'YYYY-MM-DD HH:MM ZONE' in the local zone."""
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise ValueError(f"{moment!r} has no time zone; stored times are aware UTC datetimes")
    return moment.astimezone(ZoneInfo(zone)).strftime("%Y-%m-%d %H:%M %Z")


def scheduled_tick(clock: Clock, name: str, config: dict, run, zone: str = "Asia/Karachi",
                   period_minutes: int = 60) -> dict:
    """What the scheduler calls: read the clock once, build the Job, run it, report."""
    fired_at = clock.now()  # the one timestamp of this run; everything below derives from it
    window_start, window_end = window_for(fired_at)
    result = run(Job(name, window_start, window_end, config))
    return {"fired_at": fired_at.astimezone(UTC), "window": (window_start, window_end),
            "shown": local_label(fired_at, zone), "result": result}
