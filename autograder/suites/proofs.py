"""Hidden tests for the proofs: concurrent triggers, crash recovery, missed runs (notebook 07)."""

from autograder.suite import Case

RAW2 = "raw #2 (the feed changed since)"


def together(name: str, workers: int, observe: list, weight: float) -> Case:
    return Case(name=name, probe="proofs.fire_together", args=(workers, observe), weight=weight,
                timeout=12, shows=f"fire_together(db_path, job, ..., workers={workers})")


def crash(name: str, step: str, advance: float, observe: list, weight: float) -> Case:
    runs = [{"crash_at": step},
            {"advance": advance, "variant": RAW2, "owner": "worker-2"}]
    return Case(name=name, probe="job_flow.scenario", args=(runs, observe), weight=weight,
                shows=f"run_job dies after {step!r}; {advance:g} s later the feed has changed "
                      "and worker-2 triggers the same run")


def stale_worker(name: str, disk_full_on_waking: bool, observe: list, weight: float) -> Case:
    return Case(name=name, probe="proofs.stale_worker", args=(disk_full_on_waking, observe),
                weight=weight, timeout=10,
                shows="worker-1's run_job stalls after 'metrics' past its lease; worker-2 "
                      "recovers and finishes the run; then worker-1 wakes up"
                      + (" to a full disk" if disk_full_on_waking else ""))


def gap(name: str, last_end_hour: int, now_minutes: float, weight: float, **options) -> Case:
    return Case(name=name, probe="proofs.gap", args=(last_end_hour, now_minutes), kwargs=options,
                weight=weight, shows=f"catch_up(db, 'psx_hourly', last_end={last_end_hour:02d}:00"
                f" UTC, now=06:05 UTC + {now_minutes:g} min)" + (
                    f" called {options['calls']} times" if options.get("calls") else ""))


CASES = [
    together("two triggers at once: one SUCCEEDED, one DUPLICATE, one fetch", 2,
             ["statuses", "results", "fetches"], 3),
    together("two triggers at once leave no duplicated rows or files", 2,
             ["runs", "attempts", "rows", "files"], 3),
    together("three triggers at once: one SUCCEEDED, two DUPLICATE", 3, ["statuses", "fetches"], 1),
    crash("interrupted after normalisation, lease expired: recovered as attempt 2 from the "
          "same raw input", "normalised", 600,
          ["results", "runs", "attempts", "fetches", "report says raw_hash"], 4),
    crash("the recovered run stores its records and files once", "normalised", 600,
          ["rows", "files", "artifact hashes"], 2),
    crash("an interrupted run is not recovered while its lease is still live", "normalised", 60,
          ["results", "runs", "attempts", "fetches"], 2),
    crash("interrupted after the artifacts were written: recovered and marked SUCCEEDED",
          "artifacts", 900, ["results", "runs", "attempts", "files", "report says raw_hash"], 2),
    crash("interrupted right after the raw input was stored: no second fetch", "raw_stored",
          600, ["results", "fetches", "report says raw_hash"], 1),
    # Rule (Part 3, "Fencing: the attempt number is your fencing token"): "Before every
    # `store.write` in step 6, and before removing the run's artifacts after an error, check
    # `holds_run(db, key, attempt)` inside one `with transaction(db):` block and do the write or
    # the removals inside that same block [...] When `holds_run` returns `False`, another attempt
    # holds the run: write nothing, remove nothing, do not call `finish_run`, and return status
    # `"LOST"` at once."
    stale_worker("a stale worker that fails after a takeover removes nothing: the recovered "
                 "run keeps its report", True,
                 ["worker-2 (recovers)", "worker-1 (wakes up late)", "runs", "files",
                  "artifact hashes"], 3),
    # Rule (Part 3, "Fencing: the attempt number is your fencing token"): "Before every
    # `store.write` in step 6, and before removing the run's artifacts after an error, check
    # `holds_run(db, key, attempt)` inside one `with transaction(db):` block and do the write or
    # the removals inside that same block [...] When `holds_run` returns `False`, another attempt
    # holds the run: write nothing, remove nothing, do not call `finish_run`, and return status
    # `"LOST"` at once."
    stale_worker("a stale worker writes no file after a takeover and ends LOST", False,
                 ["worker-1 (wakes up late)", "writes by worker-1 after the takeover", "rows",
                  "artifact hashes"], 2),
    gap("a missed run is logged as a gap, not backfilled", 3, 0, 3),
    gap("after a restart only the current window runs; the gaps stay empty", 3, 0, 2,
        then_run=True),
    gap("logging the same gaps twice keeps one row per window", 2, 0, 1.5, calls=2),
    gap("no gap when the last run ended at the last window", 5, 0, 1),
    gap("nothing to run when the current window is already done", 6, 30, 1),
]
