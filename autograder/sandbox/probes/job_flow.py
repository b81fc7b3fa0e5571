"""Probes for notebook 07's run_job: runs one after another, observed step by step."""

from __future__ import annotations

from . import lookup, probe
from ._capstone import (
    BASE,
    World,
    artifacts_check,
    file_names,
    labeller,
    observe_run,
    report_raw,
    scratch,
    variant,
)


@probe("job_flow.scenario")
def job_flow_scenario(namespace: dict, runs: list, observe: list) -> dict:
    """Runs of run_job one after another, each described by a dict:
    hour (the window's start hour), script (what the fetches do), variant (which raw bytes),
    quotes_hour (the hour the feed's quotes belong to; the window's hour unless given),
    fail_on ("report"/"records": that artifact's write fails), settings (Job fields),
    advance (seconds the clock moves first), crash_at (a step where the process dies).
    `observe` picks what comes back, so that each case names one property."""
    with scratch() as folder:
        world = World(namespace, folder)
        seen: dict = {"results": [], "steps": [], "states at artifact writes": [],
                      "result keys": []}
        keys = []
        try:
            for run in runs:
                world.clock.advance(run.get("advance", 0))
                job = world.job(run.get("hour", 5), **run.get("settings", {}))
                keys.append(world.key(job))
                world.source.script = list(run.get("script", []))
                world.source.raw = variant(run.get("variant", "raw #1"),
                                           run.get("quotes_hour", run.get("hour", 5)))
                names = lookup(namespace, "artifact_names")(keys[-1])
                world.store.fail_on = {names[0 if kind == "report" else 1]
                                       for kind in run.get("fail_on", [])}
                result, steps, states, result_keys = observe_run(
                    world, job, run.get("owner", "worker-1"), run.get("crash_at"))
                seen["results"].append(result)
                seen["result keys"].append(result_keys)
                seen["steps"].append(steps)
                seen["states at artifact writes"].append(states)
            seen["steps of the last run"] = seen["steps"][-1]
            # a run failing at step 4 reports two names (their spelling is another case's)
            seen["steps of the last run after its first two"] = seen["steps"][-1][2:]
            label = labeller(list(dict.fromkeys(keys)))
            seen.update(world.tables(label))
            seen["files"] = file_names(world.store)
            seen["artifact hashes"] = artifacts_check(world)
            seen["fetches"] = world.source.calls
            seen["pauses (s)"] = list(world.clock.slept)
            seen["clock (s after start)"] = (world.clock.now() - BASE).total_seconds()
            seen["report says raw_hash"] = report_raw(world)
            return {name: seen[name] for name in observe}
        finally:
            world.close()


