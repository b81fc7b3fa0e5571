"""Hidden tests for scheduling: scheduler_settings, local_label, scheduled_tick (notebook 07)."""

from datetime import datetime, timezone

from autograder.suite import Case, call

UTC = timezone.utc
S = "scheduler_settings"


def tick(name: str, start: datetime, zone: str, period: int, weight: float) -> Case:
    return Case(name=name, probe="scheduling.tick", args=(start, zone, period), weight=weight,
                shows=f"scheduled_tick(clock at {start.isoformat()}, ..., zone={zone!r}, "
                      f"period_minutes={period}) with a clock that moves 1 s per read")


CASES = [
    call(S, "psx_hourly", 5, 30, 2, "Asia/Karachi", weight=3,
         name="an hourly job at :05 in Karachi, data needed within 30 min, runs take 2 min"),
    call(S, "fx_rates", 0, 15, 5, "UTC", weight=1.5,
         name="a tight freshness need gives a short grace time"),
    call(S, "eod_report", 45, 240, 10, "America/New_York", weight=2,
         name="the grace time never exceeds the hour until the next run"),
    call(S, "psx_hourly", 5, 30, 30, "Asia/Karachi", weight=1,
         name="a run as long as the freshness need is rejected"),
    call(S, "psx_hourly", 60, 30, 2, "Asia/Karachi", weight=1, name="minute 60 is rejected"),
    call(S, "psx_hourly", 5, 30, -1, "Asia/Karachi", weight=0.5,
         name="a negative runtime is rejected"),
    call(S, "psx_hourly", 5, 30, 2, "Mars/Olympus", weight=1, message_contains=("Mars/Olympus",),
         name="an unknown time zone is rejected and named"),
    call("local_label", datetime(2024, 3, 15, 6, 5, tzinfo=UTC), "Asia/Karachi", weight=2,
         name="06:05 UTC is shown as 11:05 PKT in Karachi"),
    call("local_label", datetime(2024, 3, 15, 6, 5, tzinfo=UTC), weight=1,
         name="the default zone is Asia/Karachi"),
    call("local_label", datetime(2024, 7, 1, 20, 0, tzinfo=UTC), "America/New_York", weight=1,
         name="New York in summer is EDT (UTC-4)"),
    call("local_label", datetime(2024, 1, 15, 20, 0, tzinfo=UTC), "America/New_York", weight=1,
         name="New York in winter is EST (UTC-5)"),
    call("local_label", datetime(2024, 3, 31, 0, 30, tzinfo=UTC), "Europe/London", weight=0.5,
         name="London just before the spring change is GMT"),
    call("local_label", datetime(2024, 3, 15, 6, 5), weight=1,
         name="a time without a zone is rejected"),
    tick("the run reads the clock once: fired_at, window and label all come from one moment",
         datetime(2024, 3, 15, 6, 59, 59, 500000, tzinfo=UTC), "Asia/Karachi", 60, 3),
    tick("a 15-minute job gets the 15-minute window that has just closed",
         datetime(2024, 3, 15, 6, 5, tzinfo=UTC), "Asia/Karachi", 15, 1.5),
    tick("the label uses the zone it is given", datetime(2024, 7, 1, 9, 0, 30, tzinfo=UTC),
         "Europe/London", 60, 1),
]
