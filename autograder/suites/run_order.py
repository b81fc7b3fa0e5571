"""Hidden tests for run_order (notebook 04, 25 points).

The generated graphs are built once, at import, from a fixed seed, so every grading run sees the
same plain dictionaries. tests/test_04_run_order.py checks the reference against networkx on many
more of them.
"""

from __future__ import annotations

import json
import random
from itertools import pairwise

from autograder.reference import REPOSITORY
from autograder.sandbox import plain
from autograder.suite import Case, call

F = "run_order"
TRADING_JOBS: dict[str, list[str]] = json.loads(
    (REPOSITORY / "data" / "trading_jobs.json").read_text())["jobs"]

PREFIXES = ("archive", "book", "check", "clean", "fetch", "load", "price", "report", "risk",
            "send", "sync", "value")
SUFFIXES = ("asia", "bonds", "credit", "equity", "eu", "fx", "ops", "rates", "uk", "us")


def job_names(rng: random.Random, count: int) -> list[str]:
    """`count` different job names such as "risk_eu", in no particular order."""
    if count <= len(PREFIXES) * len(SUFFIXES):
        return rng.sample([f"{p}_{s}" for p in PREFIXES for s in SUFFIXES], count)
    return [f"{rng.choice(PREFIXES)}_{number:04d}" for number in rng.sample(range(10_000), count)]


def generated_graph(rng: random.Random, count: int, most_dependencies: int = 3,
                    cycle_length: int = 0) -> dict[str, list[str]]:
    """A random job graph: each job depends on a few jobs created before it, so there is no
    cycle unless `cycle_length` > 0 closes one. Keys and lists come in shuffled order."""
    names = job_names(rng, count)
    tasks = {name: rng.sample(names[:index], rng.randint(0, min(index, most_dependencies)))
             for index, name in enumerate(names)}
    if cycle_length:
        ring = sorted(rng.sample(range(count), cycle_length))
        for earlier, later in pairwise(ring):
            if names[earlier] not in tasks[names[later]]:
                tasks[names[later]].append(names[earlier])
        tasks[names[ring[0]]].append(names[ring[-1]])  # the first waits for the last: a ring
    shuffled = rng.sample(list(tasks), count)
    return {name: rng.sample(tasks[name], len(tasks[name])) for name in shuffled}


def order(tasks: dict, name: str, weight: float = 1.0, *, rule: str, **options) -> Case:
    return call(F, tasks, name=name, weight=weight, rule=rule, **options)


def rejected(tasks: dict, name: str, weight: float = 1.0, mentions: tuple[str, ...] = (), *,
             rule: str = "") -> Case:
    return call(F, tasks, name=name, weight=weight, message_contains=mentions,
                rule=rule or UNKNOWN)


def cycle(tasks: dict, name: str, weight: float = 1.0) -> Case:
    return rejected(tasks, name, weight, mentions=("cycle detected",), rule=CYCLE)


def either(tasks: dict, name: str, unknown: str, weight: float = 1.0) -> Case:
    """A graph with a cycle and the dependency `unknown`, which is not a job: a ValueError that
    says `cycle detected` or names `unknown` is right."""
    return call(F, tasks, name=name, weight=weight, message_contains=("cycle detected", unknown),
                any_mention=True, rule=BOTH)


def untouched(tasks: dict, name: str, weight: float = 1.0, *, rule: str,
              rejection: bool = False) -> Case:
    """The input after a call; `rejection` for a graph that run_order must reject, where only
    the input is observed, whatever the call did (see the probe)."""
    shown = plain.show(plain.to_plain(tasks), 120)
    return Case(name=name, probe="run_order.input_after_call",
                args=(tasks, True) if rejection else (tasks,), weight=weight,
                shows=f"tasks = {shown}; run_order(tasks); then tasks itself", rule=rule,
                rejection=rejection)


# The rules of the exercise section, word for word.
ONCE = "Return every job exactly once, in the order to run them."
AFTER = "Every job comes **after all of its dependencies**."
FIRST = "When several jobs are ready, the **alphabetically first** runs next"
AGAIN = ("Choose again after *every* job: a job that has just become ready may be the "
         "alphabetically first.")
STRINGS = "Python's string order, as `min` and `sorted` use it"
TWICE = "A dependency listed twice counts once."
CYCLE = ("A **cycle** (jobs that wait for each other, including a job that depends on itself) "
         "raises `ValueError` whose message contains `cycle detected`")
UNKNOWN = ("A dependency that is **not a job** (not a key of `tasks`) raises `ValueError` whose "
           "message names it.")
BOTH = ("A table with **both** a cycle and a dependency that is not a job raises either of those "
        "two errors, whichever your function finds first.")
UNTOUCHED = "`tasks` and its lists are **not modified**"
LARGE = ("the hidden tests include a generated graph of 1,000 jobs, which must be answered "
         "within 5 seconds")

MORNING = {"report": ["risk", "pnl"], "risk": ["prices", "positions"],
           "pnl": ["prices", "positions"], "prices": [], "positions": []}

_rng = random.Random(20240604)
GENERATED_DAGS = [generated_graph(_rng, count) for count in (6, 9, 12, 20, 30, 45)]
GENERATED_CYCLES = [generated_graph(_rng, count, cycle_length=length)
                    for count, length in ((8, 2), (15, 3), (30, 5))]
LARGE_DAG = generated_graph(_rng, 1000, most_dependencies=4)

CASES = [
    # the order itself
    order({}, "no jobs give an empty order", weight=0.5, rule=ONCE),
    order({"prices": []}, "one job with no dependencies", weight=0.5, rule=ONCE),
    order({"trades": [], "risk": [], "prices": [], "fx_rates": []},
          "independent jobs run alphabetically, not in the order they were listed", weight=1.5,
          rule=FIRST),
    order({"zeta": [], "alpha": ["zeta"]},
          "a dependency runs first even when its name sorts last", weight=1.5, rule=AFTER),
    order({"report": ["risk"], "risk": ["prices"], "prices": []},
          "a chain listed from its end runs from its start", weight=1, rule=AFTER),
    order(MORNING, "the morning desk: ties between ready jobs go to the alphabetically first",
          weight=1.5, rule=FIRST),
    order({"b": [], "c": [], "a": ["b"]},
          "a job that becomes ready later still runs before alphabetically later ready jobs",
          weight=2, rule=AGAIN),
    order({"load": [], "value": ["load"], "check": ["value"], "archive": [], "zip": []},
          "the alphabetically first ready job is chosen again after every job that runs",
          weight=1.5, rule=AGAIN),
    order({"job10": [], "job2": [], "job1": ["job2"]},
          "alphabetical means Python's string order: 'job10' comes before 'job2'", weight=0.5,
          rule=STRINGS),
    order({"EOD_prices": [], "archive": [], "report": []},
          "in Python's string order capital letters come first: 'EOD_prices' before 'archive'",
          weight=0.5, rule=STRINGS),
    order({"report": ["prices", "prices"], "prices": []},
          "a dependency listed twice counts once", weight=1, rule=TWICE),
    order({"report": ["risk", "prices", "risk"], "risk": ["prices"], "prices": [], "audit": []},
          "a dependency listed twice does not hold its job back", weight=0.5, rule=TWICE),
    order(TRADING_JOBS, "the trading desk's overnight jobs (data/trading_jobs.json)", weight=2,
          rule=FIRST),
    *[order(graph, f"generated graph {number} ({len(graph)} jobs)", weight=0.75, rule=FIRST)
      for number, graph in enumerate(GENERATED_DAGS, start=1)],
    order(LARGE_DAG, "a generated graph of 1000 jobs, answered within the time limit", weight=1,
          shows="run_order(<a generated graph of 1000 jobs>)", rule=LARGE),
    # cycles
    cycle({"risk": ["risk"]}, "a job that depends on itself is a cycle", weight=1),
    cycle({"risk": ["limits"], "limits": ["risk"], "prices": []},
          "two jobs waiting for each other are a cycle", weight=1),
    cycle({"prices": [], "a": ["c", "prices"], "b": ["a"], "c": ["b"], "report": ["prices"]},
          "a cycle behind jobs that can run is still detected, not skipped", weight=1.5),
    cycle({"prices": [], "risk": ["prices", "limits"], "limits": ["risk"], "report": ["limits"]},
          "a cycle with jobs waiting behind it", weight=1),
    cycle({**TRADING_JOBS, "prices": ["archive"]},
          "the trading jobs with prices waiting for the archive: a cycle", weight=1),
    *[cycle(graph, f"generated graph with a {length}-job cycle", weight=0.5)
      for graph, length in zip(GENERATED_CYCLES, (2, 3, 5), strict=True)],
    # dependencies that are not jobs
    rejected({"risk": ["prices"], "report": ["risk"]},
             "a dependency that is not a job is rejected and named", weight=1.5,
             mentions=("prices",)),
    rejected({**TRADING_JOBS, "risk": ["valuation", "vendor_curves"]},
             "a misspelt or missing dependency in the trading jobs is named", weight=1,
             mentions=("vendor_curves",)),
    rejected({"prices": [], "report": ["prices", "prcies"]},
             "a typo in a dependency is not ignored", weight=1, mentions=("prcies",)),
    # both at once: either error
    either({"prices": [], "risk": ["limits", "prices"], "limits": ["risk", "audit"],
            "report": ["risk"]},
           "a cycle and, on a job of the cycle, a dependency that is not a job: either error",
           "audit", weight=0.75),
    either({"prices": [], "risk": ["limits"], "limits": ["risk"], "report": ["prices", "prcies"]},
           "a cycle and, on another job, a dependency that is not a job: either error", "prcies",
           weight=0.75),
    # the input is left alone
    untouched({"report": ["risk", "pnl"], "risk": ["prices", "positions"],
               "pnl": ["prices", "positions"], "prices": [], "positions": []},
              "the input dictionary and its lists are not modified", weight=1.5, rule=UNTOUCHED),
    untouched(TRADING_JOBS, "the trading jobs are not modified by a call", weight=1,
              rule=UNTOUCHED),
    untouched({"risk": ["limits", "limits"], "limits": ["risk"], "prices": []},
              "a graph with a cycle is not modified either, a dependency listed twice included",
              weight=0.75, rule=UNTOUCHED, rejection=True),
    untouched({"prices": [], "report": ["prices", "prcies"]},
              "a graph with an unknown dependency is not modified either", weight=0.5,
              rule=UNTOUCHED, rejection=True),
]
