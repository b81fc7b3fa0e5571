"""Hidden tests for the proofs: concurrent triggers, crash recovery, missed runs (notebook 07)."""

from autograder.suite import Case

RAW2 = "raw #2 (the feed changed since)"

# The rules of the exercise section (Part 4 and its proofs), word for word.
TOGETHER = ("**`fire_together`** starts `workers` threads that all wait at one "
            "`threading.Barrier(workers)`")
NO_TRACE = ("Exactly one `INSERT` can win; the other trigger must report a duplicate and leave "
            "no trace.")
SAME_RAW = ("the recovered run must still use the raw input of the first attempt: same raw hash, "
            "same report.")
LEASE = "Its lease (300 s) keeps a second trigger away for a while"
RECOVERS = "after it expires, another worker recovers the run"
GAPS = "every whole window from `last_end` up to that window's start was **missed**"
NO_BACKFILL = "`catch_up` never creates a run for a missed window"
TWICE = "with `INSERT OR IGNORE` so that logging twice changes nothing"
NO_GAP = "| 05:00 | 06:05 | (05:00, 06:00) | `[]` |"
NOTHING = "`\"run\"` is `None` when the current window ended at or before `last_end`."
BOUNDARY = "(an aware datetime on a window boundary; `ValueError` otherwise)"
FENCING = "every write must show the current number; a write with an older number is refused"
RAISES = "A thread whose `run_job` raises leaves `None` in its place in the list."
ORDER = "returns their results in thread order"
SAME_TRANSACTION = ("the check and the file operation belong in the same `with transaction(db):` "
                    "block")


def together(name: str, workers: int, observe: list, weight: float, rule: str) -> Case:
    return Case(name=name, probe="proofs.fire_together", args=(workers, observe), weight=weight,
                timeout=12, shows=f"fire_together(db_path, job, ..., workers={workers})",
                rule=rule)


def crash(name: str, step: str, advance: float, observe: list, weight: float,
          rule: str) -> Case:
    runs = [{"crash_at": step},
            {"advance": advance, "variant": RAW2, "owner": "worker-2"}]
    return Case(name=name, probe="job_flow.scenario", args=(runs, observe), weight=weight,
                shows=f"run_job dies after {step!r}; {advance:g} s later the feed has changed "
                      "and worker-2 triggers the same run", rule=rule)


def stale_worker(name: str, disk_full_on_waking: bool, observe: list, weight: float) -> Case:
    return Case(name=name, probe="proofs.stale_worker", args=(disk_full_on_waking, observe),
                weight=weight, timeout=10, rule=FENCING,
                shows="worker-1's run_job stalls after 'metrics' past its lease; worker-2 "
                      "recovers and finishes the run; then worker-1 wakes up"
                      + (" to a full disk" if disk_full_on_waking else ""))


def takeover(name: str, operation: str, observe: list, weight: float) -> Case:
    return Case(name=name, probe="proofs.takeover_at_the_fence", args=(operation, observe),
                weight=weight, timeout=10, rule=SAME_TRANSACTION,
                shows="worker-2 recovers and finishes the run at the last moment before "
                      f"worker-1's first {'removal' if operation == 'remove' else 'write'} "
                      "at which the database lets it"
                      + (" (worker-1's disk is full)" if operation == "remove" else ""))


def gap(name: str, last_end_hour: int, now_minutes: float, weight: float, *, rule: str,
        **options) -> Case:
    minute = options.get("last_end_minute", 0)
    zone = " (no time zone)" if options.get("naive_last_end") else " UTC"
    return Case(name=name, probe="proofs.gap", args=(last_end_hour, now_minutes), kwargs=options,
                weight=weight, rule=rule,
                shows=f"catch_up(db, 'psx_hourly', last_end={last_end_hour:02d}:{minute:02d}"
                f"{zone}, now=06:05 UTC + {now_minutes:g} min)" + (
                    f" called {options['calls']} times" if options.get("calls") else ""))


CASES = [
    together("two triggers at once: one SUCCEEDED, one DUPLICATE, one fetch", 2,
             ["statuses", "results", "fetches"], 3, TOGETHER),
    together("two triggers at once leave no duplicated rows or files", 2,
             ["runs", "attempts", "rows", "files"], 3, NO_TRACE),
    together("three triggers at once: one SUCCEEDED, two DUPLICATE", 3, ["statuses", "fetches"], 1,
             NO_TRACE),
    Case(name="a thread whose run_job raises leaves None in its place; the others still report",
         probe="proofs.fire_together_one_raises", args=(2,), weight=1, timeout=12,
         shows="fire_together(db_path, job, ..., workers=2), the first call of run_job raising "
               "RuntimeError", rule=RAISES),
    Case(name="the results come back in thread order, whichever thread finishes first",
         probe="proofs.fire_together_order", args=(3,), weight=1, timeout=12,
         shows="fire_together(db_path, job, ..., workers=3), worker-3's run_job returning first "
               "and worker-1's last", rule=ORDER),
    crash("interrupted after normalisation, lease expired: recovered as attempt 2 from the "
          "same raw input", "normalised", 600,
          ["results", "runs", "attempts", "fetches", "report says raw_hash"], 4, SAME_RAW),
    crash("the recovered run stores its records and files once", "normalised", 600,
          ["rows", "files", "artifact hashes"], 2, SAME_RAW),
    crash("an interrupted run is not recovered while its lease is still live", "normalised", 60,
          ["results", "runs", "attempts", "fetches"], 2, LEASE),
    crash("interrupted after the artifacts were written: recovered and marked SUCCEEDED",
          "artifacts", 900, ["results", "runs", "attempts", "files", "report says raw_hash"], 2,
          RECOVERS),
    crash("interrupted right after the raw input was stored: no second fetch", "raw_stored",
          600, ["results", "fetches", "report says raw_hash"], 1, SAME_RAW),
    stale_worker("a stale worker that fails after a takeover removes nothing: the recovered "
                 "run keeps its report", True,
                 ["worker-2 (recovers)", "worker-1 (wakes up late)", "runs", "files",
                  "artifact hashes"], 3),
    stale_worker("a stale worker writes no file after a takeover and ends LOST", False,
                 ["worker-1 (wakes up late)", "writes by worker-1 after the takeover", "rows",
                  "artifact hashes"], 2),
    takeover("a takeover just before the report is written: the stale worker writes nothing",
             "write", ["file operations by worker-1 after the takeover", "artifact hashes"], 2),
    takeover("a takeover just before a failed run removes its files: the stale worker removes "
             "nothing", "remove", ["file operations by worker-1 after the takeover", "files"],
             2),
    gap("a missed run is logged as a gap, not backfilled", 3, 0, 3, rule=GAPS),
    gap("after a restart only the current window runs; the gaps stay empty", 3, 0, 2,
        then_run=True, rule=NO_BACKFILL),
    gap("logging the same gaps twice keeps one row per window", 2, 0, 1.5, calls=2, rule=TWICE),
    gap("no gap when the last run ended at the last window", 5, 0, 1, rule=NO_GAP),
    gap("nothing to run when the current window is already done", 6, 30, 1, rule=NOTHING),
    gap("a last_end that is not on a window boundary raises ValueError", 4, 0, 0.5,
        last_end_minute=30, rule=BOUNDARY),
    gap("a last_end without a time zone raises ValueError", 3, 0, 0.5, naive_last_end=True,
        rule=BOUNDARY),
]
