"""Latency for one student: `python -m autograder grade` on seven honest notebooks.

    python benchmarks/latency.py [--jobs 2] [--repeat 3]

A student waiting for Gradescope's result waits for this. Prints:

1. The wall time of the command itself (a fresh process, as Gradescope runs it), with the
   expected values stored by an earlier run (`--expected DIR`, as the Gradescope bundle ships
   them) and without (worked out from solutions/ first). Median of `--repeat` runs each.
2. Where the time goes, measured step by step in this process for the same seven notebooks
   (sums over the notebooks, one after another): prepare (the expected values, read back from
   the store), read and extract, sandbox start (a worker with nothing to run), setup cells,
   student cells, probes (the hidden tests), scoring and writing. The sandbox steps are the
   differences between runs of the same notebook's job cut after each step.

The target is under 3 s of wall time with stored expected values, on two cores.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat

REPOSITORY = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPOSITORY))
sys.path.insert(0, str(REPOSITORY / "tests"))

import fixtures  # noqa: E402

from autograder import expected, grading, isolation, report, runner, scoring, suite  # noqa: E402
from autograder.notebook import extract, read_notebook  # noqa: E402
from autograder.rubric import EXERCISES  # noqa: E402

TARGET_SECONDS = 3.0


def command_seconds(notebooks: list[Path], out: Path, jobs: int, store: Path | None) -> float:
    command = [sys.executable, "-m", "autograder", "grade", *map(str, notebooks), "--results",
               str(out / "results.json"), "--jobs", str(jobs)]
    if store is not None:
        command += ["--expected", str(store)]
    started = time.perf_counter()
    done = subprocess.run(command, cwd=REPOSITORY, capture_output=True, text=True, timeout=600)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        sys.exit(f"grade failed (exit status {done.returncode}):\n{done.stderr[-2000:]}")
    return seconds


def breakdown(notebooks: list[Path], store: Path) -> dict[str, float]:
    """Seconds per step, summed over the notebooks graded one after another."""
    steps = dict.fromkeys(("prepare", "read and extract", "sandbox start", "setup cells",
                           "student cells", "probes", "scoring", "writing"), 0.0)
    started = time.perf_counter()
    expected.prepare(EXERCISES, store)
    steps["prepare"] = time.perf_counter() - started
    options = grading.Options(isolation=isolation.Isolation.choose("auto"))
    results = []
    for path in notebooks:
        started = time.perf_counter()
        notebook = read_notebook(path)
        exercise = grading.recognise(path, notebook)
        extracted = extract(notebook, exercise)
        steps["read and extract"] += time.perf_counter() - started
        limits = options.limits(exercise)
        cases = list(suite.exercise_cases(exercise))
        jobs = [  # the same job cut after each step
            {"prelude": [], "cells": [], "cases": []},
            {"prelude": extracted.prelude, "cells": [], "cases": []},
            {"prelude": extracted.prelude, "cells": extracted.cells, "cases": []},
            {"prelude": extracted.prelude, "cells": extracted.cells, "cases": cases},
        ]
        elapsed = []
        for job in jobs:
            job["cell_timeout"] = limits.cell_time
            began = time.perf_counter()
            run = runner.run(job, limits, options.isolation, exercise.assignment)
            elapsed.append(time.perf_counter() - began)
        for name, before, after in (("sandbox start", 0.0, elapsed[0]),
                                    ("setup cells", elapsed[0], elapsed[1]),
                                    ("student cells", elapsed[1], elapsed[2]),
                                    ("probes", elapsed[2], elapsed[3])):
            steps[name] += max(0.0, after - before)
        started = time.perf_counter()
        result = scoring.score_run(exercise, run, limits, str(path))
        steps["scoring"] += time.perf_counter() - started
        results.append(result)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as folder:
        report.write_results(Path(folder) / "results.json", results)
        report.write_atomic(Path(folder) / "report.md", report.report_markdown(results))
    steps["writing"] = time.perf_counter() - started
    return steps


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", type=int, default=2, help="grade --jobs (default 2)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per figure (median)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="latency-") as folder:
        root = Path(folder)
        notebooks = []
        for exercise in EXERCISES:
            path = root / "submission" / f"{exercise.notebook}.ipynb"
            path.parent.mkdir(parents=True, exist_ok=True)
            nbformat.write(fixtures.honest_submission(exercise), path)
            notebooks.append(path)
        store = root / "expected"
        command_seconds(notebooks, root, args.jobs, store)  # stores the expected values
        stored = statistics.median(command_seconds(notebooks, root, args.jobs, store)
                                   for _ in range(args.repeat))
        fresh = statistics.median(command_seconds(notebooks, root, args.jobs, None)
                                  for _ in range(args.repeat))
        print(f"one student, {len(notebooks)} honest notebooks, grade --jobs {args.jobs} "
              f"(median of {args.repeat}):")
        print(f"  with stored expected values: {stored:.2f} s wall "
              f"({'within' if stored < TARGET_SECONDS else 'over'} the {TARGET_SECONDS:g} s "
              "target)")
        print(f"  working them out first:      {fresh:.2f} s wall")
        steps = breakdown(notebooks, store)
        total = sum(steps.values())
        print(f"where the time goes, one notebook after another ({total:.2f} s in all):")
        for name, seconds in steps.items():
            print(f"  {name:<17} {seconds:6.2f} s  {seconds / total:5.0%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
