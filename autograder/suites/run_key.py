"""Hidden tests for run_key and config_hash (notebook 07, 5 points)."""

from datetime import datetime, timezone
from zoneinfo import ZoneInfo

from autograder.suite import Case, call

UTC = timezone.utc
CONFIG = {"symbols": ["ENGRO", "HBL", "OGDC"], "metric": "vwap"}
WINDOW_START = datetime(2024, 3, 15, 5, 0, tzinfo=UTC)
WINDOW_END = datetime(2024, 3, 15, 6, 0, tzinfo=UTC)
PARTS = {"job": "psx_hourly", "window_start": WINDOW_START, "window_end": WINDOW_END,
         "config": CONFIG, "source": "psx-cache"}
KARACHI = ZoneInfo("Asia/Karachi")

# The rules of the exercise section (Part 1), word for word.
CONFIG_RECIPE = "`config_hash(config)`: the sha256 hex digest of"
SORTED_KEYS = ("Sorted keys make `{\"a\": 1, \"b\": 2}` and `{\"b\": 2, \"a\": 1}` the same "
               "configuration.")
KEY_RECIPE = ("`run_key(...)`: build the dict `{\"job\": job, "
              "\"window_start\": utc_text(window_start), "
              "\"window_end\": utc_text(window_end), \"config_hash\": config_hash(config), "
              "\"source\": source}`")
ONE_NAME = "it needs one name that every trigger computes the same way: the **run key**."
ZONES = ("Because both ends go through `utc_text`, the same window written in Karachi time gives "
         "the same key.")
REJECTS = ("Raise `ValueError` when `window_start` or `window_end` has no time zone, or when the "
           "window does not end after it starts.")


def key_call(name: str, weight: float = 1.0, *, rule: str, **changes):
    parts = dict(PARTS, **changes)
    return call("run_key", parts["job"], parts["window_start"], parts["window_end"],
                parts["config"], parts["source"], name=name, weight=weight, rule=rule)


def same(name: str, other: dict, weight: float, rule: str) -> Case:
    return Case(name=name, probe="run_key.same_run_same_key", args=(PARTS, dict(PARTS, **other)),
                weight=weight, shows=f"run_key(...) for {', '.join(other) or 'the same parts'}",
                rule=rule)


def change(name: str, field: str, value, weight: float) -> Case:
    return Case(name=name, probe="run_key.one_change", args=(PARTS, field, value), weight=weight,
                shows=f"run_key(...) with {field}={value!r}", rule=KEY_RECIPE)


CASES = [
    # Its keys already in sorted order: a hash of the configuration as given passes this one
    # and fails the next, whose rule (sorted keys) is the one it breaks.
    call("config_hash", {"metric": "vwap", "symbols": ["ENGRO", "HBL", "OGDC"]},
         name="config_hash follows the recipe (canonical JSON, sha256 hex)", rule=CONFIG_RECIPE),
    call("config_hash", CONFIG, name="the order of a config's keys does not change its hash",
         rule=SORTED_KEYS),
    call("config_hash", {"window": {"minutes": 60, "align": "hour"}, "fee_bp": 2.5},
         name="a nested config hashes canonically too", weight=0.5, rule=CONFIG_RECIPE),
    key_call("run_key follows the recipe (canonical JSON of the five parts, sha256 hex)",
             weight=1.5, rule=KEY_RECIPE),
    same("the same logical run always gives the same key", {}, 1.5, ONE_NAME),
    same("the same window written in Karachi time gives the same key",
         {"window_start": WINDOW_START.astimezone(KARACHI),
          "window_end": WINDOW_END.astimezone(KARACHI)}, 1.5, ZONES),
    same("a config with its keys in another order gives the same key",
         {"config": {"metric": "vwap", "symbols": ["ENGRO", "HBL", "OGDC"]}}, 1, SORTED_KEYS),
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
    key_call("a window whose start has no time zone is rejected", weight=0.5, rule=REJECTS,
             window_start=datetime(2024, 3, 15, 5, 0),
             window_end=datetime(2024, 3, 15, 6, 0, tzinfo=UTC)),
    key_call("a window that ends before it starts is rejected", weight=0.5, rule=REJECTS,
             window_start=datetime(2024, 3, 15, 6, 0, tzinfo=UTC),
             window_end=datetime(2024, 3, 15, 5, 0, tzinfo=UTC)),
    key_call("a window that ends when it starts (no time at all) is rejected", weight=0.5,
             rule=REJECTS, window_end=WINDOW_START),
]
