# Bug: local_label formats the zone with %z, the offset (+0500), instead of %Z, the zone's
# abbreviation (PKT) the notebook asks for.
# ruff: noqa: F821, E501 (the other names come from the notebook's setup cells)
# notebook: 07_safe_scheduler
# loses: test_scheduling
# %% new:answer_scheduling
def local_label(moment: datetime, zone: str = "Asia/Karachi") -> str:
    """How a stored UTC moment is shown to people: 'YYYY-MM-DD HH:MM ZONE' in the local zone."""
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise ValueError(f"{moment!r} has no time zone; stored times are aware UTC datetimes")
    return moment.astimezone(ZoneInfo(zone)).strftime("%Y-%m-%d %H:%M %z")


def scheduled_tick(clock: Clock, name: str, config: dict, run, zone: str = "Asia/Karachi",
                   period_minutes: int = 60) -> dict:
    """What the scheduler calls: read the clock once, build the Job, run it, report."""
    fired_at = clock.now()  # the one timestamp of this run; everything below derives from it
    window_start, window_end = window_for(fired_at, period_minutes)
    result = run(Job(name, window_start, window_end, config))
    return {"fired_at": fired_at.astimezone(UTC), "window": (window_start, window_end),
            "shown": local_label(fired_at, zone), "result": result}
