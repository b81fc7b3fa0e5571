"""Hidden tests for run_key and config_hash (notebook 07, 5 points)."""

from datetime import datetime, timezone
from zoneinfo import ZoneInfo

from autograder.suite import Case, call

UTC = timezone.utc
CONFIG = {"symbols": ["ENGRO", "HBL", "OGDC"], "metric": "vwap"}
PARTS = {"job": "psx_hourly", "window_start": datetime(2024, 3, 15, 5, 0, tzinfo=UTC),
         "window_end": datetime(2024, 3, 15, 6, 0, tzinfo=UTC), "config": CONFIG,
         "source": "psx-cache"}
KARACHI = ZoneInfo("Asia/Karachi")


def key_call(name: str, weight: float = 1.0, **changes):
    parts = dict(PARTS, **changes)
    return call("run_key", parts["job"], parts["window_start"], parts["window_end"],
                parts["config"], parts["source"], name=name, weight=weight)


def same(name: str, other: dict, weight: float) -> Case:
    return Case(name=name, probe="run_key.same_run_same_key", args=(PARTS, dict(PARTS, **other)),
                weight=weight, shows=f"run_key(...) for {', '.join(other) or 'the same parts'}")


def change(name: str, field: str, value, weight: float) -> Case:
    return Case(name=name, probe="run_key.one_change", args=(PARTS, field, value), weight=weight,
                shows=f"run_key(...) with {field}={value!r}")


CASES = [
    call("config_hash", CONFIG, name="config_hash follows the recipe (canonical JSON, sha256 hex)"),
    call("config_hash", {"metric": "vwap", "symbols": ["ENGRO", "HBL", "OGDC"]},
         name="the order of a config's keys does not change its hash"),
    call("config_hash", {"window": {"minutes": 60, "align": "hour"}, "fee_bp": 2.5},
         name="a nested config hashes canonically too", weight=0.5),
    key_call("run_key follows the recipe (canonical JSON of the five parts, sha256 hex)",
             weight=1.5),
    same("the same logical run always gives the same key", {}, 1.5),
    same("the same window written in Karachi time gives the same key",
         {"window_start": PARTS["window_start"].astimezone(KARACHI),
          "window_end": PARTS["window_end"].astimezone(KARACHI)}, 1.5),
    same("a config with its keys in another order gives the same key",
         {"config": {"metric": "vwap", "symbols": ["ENGRO", "HBL", "OGDC"]}}, 1),
    change("changing the job name changes the key", "job", "psx_daily", 1),
    change("changing the window start changes the key", "window_start",
           datetime(2024, 3, 15, 4, 0, tzinfo=UTC), 1),
    change("changing the window end changes the key", "window_end",
           datetime(2024, 3, 15, 7, 0, tzinfo=UTC), 1),
    change("changing the config changes the key (the config hash is part of it)", "config",
           {"symbols": ["ENGRO", "HBL", "OGDC"], "metric": "twap"}, 2),
    change("dropping a symbol from the config changes the key", "config",
           {"symbols": ["ENGRO", "HBL"], "metric": "vwap"}, 1),
    change("changing the dataset source changes the key", "source", "psx-live", 1.5),
    key_call("a window without a time zone is rejected", weight=0.5,
             window_start=datetime(2024, 3, 15, 5, 0), window_end=datetime(2024, 3, 15, 6, 0)),
    key_call("a window that ends before it starts is rejected", weight=0.5,
             window_start=datetime(2024, 3, 15, 6, 0, tzinfo=UTC),
             window_end=datetime(2024, 3, 15, 5, 0, tzinfo=UTC)),
]
