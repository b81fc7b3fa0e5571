# Bug: scheduled_tick shows the time with local_label's default zone, not the zone it is given, so
# a London job's label says Karachi time.
# ruff: noqa: F821, E501, B905 (the other names come from the notebook's setup cells)
# notebook: 07_safe_scheduler
# loses: test_scheduling
# %% new:answer_scheduling
def scheduled_tick(clock: Clock, name: str, config: dict, run, zone: str = "Asia/Karachi",
                   period_minutes: int = 60) -> dict:
    """What the scheduler calls: read the clock once, build the Job, run it, report."""
    fired_at = clock.now()
    window_start, window_end = window_for(fired_at, period_minutes)
    result = run(Job(name, window_start, window_end, config))
    return {"fired_at": fired_at.astimezone(UTC), "window": (window_start, window_end),
            "shown": local_label(fired_at), "result": result}
