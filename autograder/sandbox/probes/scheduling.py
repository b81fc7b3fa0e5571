"""Probes for notebook 07's scheduled_tick: which window fires, read from a clock that moves."""

from __future__ import annotations

from datetime import datetime, timedelta

from . import lookup, probe
from ._capstone import config, moment_text, window_text


class TickingClock:
    """A clock that moves one second every time it is read."""

    def __init__(self, start: datetime):
        self.moment = start

    def now(self) -> datetime:
        moment = self.moment
        self.moment += timedelta(seconds=1)
        return moment

    def advance(self, seconds: float) -> None:
        self.moment += timedelta(seconds=seconds)

    def sleep(self, seconds: float) -> None:
        self.advance(seconds)


@probe("scheduling.tick")
def scheduling_tick(namespace: dict, start: datetime, zone: str, period_minutes: int) -> dict:
    """scheduled_tick with a clock that moves on every read and a run() that records its Job."""
    scheduled_tick = lookup(namespace, "scheduled_tick")
    clock = TickingClock(start)
    jobs = []

    def run(job):
        jobs.append(job)
        return {"status": "SUCCEEDED", "marker": 7}

    outcome = scheduled_tick(clock, "psx_hourly", config(), run, zone, period_minutes)
    seen_jobs = [{"name": getattr(job, "name", None),
                  "window": [moment_text(getattr(job, "window_start", None)),
                             moment_text(getattr(job, "window_end", None))],
                  "config": getattr(job, "config", None)} for job in jobs]
    if type(outcome) is not dict:
        return {"outcome": f"not a dict: {type(outcome).__name__}", "jobs run": seen_jobs}
    return {"fired_at": moment_text(outcome.get("fired_at")),
            "window": window_text(outcome.get("window")),
            "shown": outcome.get("shown"),
            "result": outcome.get("result"),
            "jobs run": seen_jobs}
