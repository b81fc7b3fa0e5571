"""Hidden tests for scheduling: scheduler_settings, local_label, scheduled_tick (notebook 07)."""

from datetime import datetime, timezone

from autograder.suite import Case, call

UTC = timezone.utc
S = "scheduler_settings"

# The rules of the exercise section (Part 5), word for word.
GRACE = "`misfire_grace_time = 60 * min(freshness_minutes - runtime_minutes, 60)`"
HOUR = "it is never more than 60 minutes, when the next hourly run is due anyway"
TOO_LONG = ("a runtime at least as long as the freshness need (no start could be on time)")
MINUTE = "Raise `ValueError` for a minute outside 0-59"
NEGATIVE = "a negative runtime"
ZONE = "a zone `zoneinfo` does not know (name it in the message)"
LABEL = ("`moment` converted with `ZoneInfo(zone)` and formatted `\"%Y-%m-%d %H:%M %Z\"`")
DEFAULT = "local_label(moment: datetime, zone: str = \"Asia/Karachi\") -> str"
NAIVE = "`ValueError` for a naive `moment`."
ONCE = "It reads the clock **once**"
WINDOW = "`window = window_for(fired_at, period_minutes)`"
SHOWN = "\"shown\": local_label(fired_at, zone)"


def tick(name: str, start: datetime, zone: str, period: int, weight: float, rule: str) -> Case:
    return Case(name=name, probe="scheduling.tick", args=(start, zone, period), weight=weight,
                rule=rule,
                shows=f"scheduled_tick(clock at {start.isoformat()}, ..., zone={zone!r}, "
                      f"period_minutes={period}) with a clock that moves 1 s per read")


CASES = [
    call(S, "psx_hourly", 5, 30, 2, "Asia/Karachi", weight=3,
         name="an hourly job at :05 in Karachi, data needed within 30 min, runs take 2 min",
         rule=GRACE),
    call(S, "fx_rates", 0, 15, 5, "UTC", weight=1.5,
         name="a tight freshness need gives a short grace time", rule=GRACE),
    call(S, "eod_report", 45, 240, 10, "America/New_York", weight=2,
         name="the grace time never exceeds the hour until the next run", rule=HOUR),
    call(S, "psx_hourly", 5, 30, 30, "Asia/Karachi", weight=1,
         name="a run as long as the freshness need is rejected", rule=TOO_LONG),
    call(S, "psx_hourly", 60, 30, 2, "Asia/Karachi", weight=1, name="minute 60 is rejected",
         rule=MINUTE),
    call(S, "psx_hourly", 5, 30, -1, "Asia/Karachi", weight=0.5,
         name="a negative runtime is rejected", rule=NEGATIVE),
    call(S, "psx_hourly", 5, 30, 2, "Mars/Olympus", weight=1, message_contains=("Mars/Olympus",),
         name="an unknown time zone is rejected and named", rule=ZONE),
    call("local_label", datetime(2024, 3, 15, 6, 5, tzinfo=UTC), "Asia/Karachi", weight=2,
         name="06:05 UTC is shown as 11:05 PKT in Karachi", rule=LABEL),
    call("local_label", datetime(2024, 3, 15, 6, 5, tzinfo=UTC), weight=1,
         name="the default zone is Asia/Karachi", rule=DEFAULT),
    call("local_label", datetime(2024, 7, 1, 20, 0, tzinfo=UTC), "America/New_York", weight=1,
         name="New York in summer is EDT (UTC-4)", rule=LABEL),
    call("local_label", datetime(2024, 1, 15, 20, 0, tzinfo=UTC), "America/New_York", weight=1,
         name="New York in winter is EST (UTC-5)", rule=LABEL),
    call("local_label", datetime(2024, 3, 31, 0, 30, tzinfo=UTC), "Europe/London", weight=0.5,
         name="London just before the spring change is GMT", rule=LABEL),
    call("local_label", datetime(2024, 3, 15, 6, 5), weight=1,
         name="a time without a zone is rejected", rule=NAIVE),
    tick("the run reads the clock once: fired_at, window and label all come from one moment",
         datetime(2024, 3, 15, 6, 59, 59, 500000, tzinfo=UTC), "Asia/Karachi", 60, 3, ONCE),
    tick("a 15-minute job gets the 15-minute window that has just closed",
         datetime(2024, 3, 15, 6, 5, tzinfo=UTC), "Asia/Karachi", 15, 1.5, WINDOW),
    tick("the label uses the zone it is given", datetime(2024, 7, 1, 9, 0, 30, tzinfo=UTC),
         "Europe/London", 60, 1, SHOWN),
]
