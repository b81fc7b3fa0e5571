"""Grading throughput: `python -m autograder grade-batch` against `nbgrader autograde`.

    python benchmarks/grading_throughput.py [--students N] [--jobs 2] [--seed 2024]

Builds, in a temporary folder, a class of N students with a notebook for every exercise whose
source notebook exists: a deterministic mix of honest answers (about half), untouched stubs and
entries of the wrong-solution corpus (tests/corpus/wrong/; entries that loop forever are left
out: they would measure the time limit, not the grader). The same files are then
graded twice, timed from the command's start to its end:

- `python -m autograder grade-batch submitted --out graded --jobs N` (sandboxed, bubblewrap
  when it works);
- nbgrader's own workflow in a temporary course (our nbgrader_config.py, solutions/ as source,
  `nbgrader generate_assignment`, then `nbgrader autograde <assignment>` for each assignment,
  which grades each notebook in the same sandbox, one at a time);
  scores are read back from nbgrader's gradebook with nbgrader.api.Gradebook.

It prints notebooks per second for each, the ratio, and whether every notebook got the same
score from both (within 0.01). Exit status 1 when any score differs.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPOSITORY / "tests"))
BIN = str(Path(sys.executable).parent)
os.environ["PATH"] = BIN + os.pathsep + os.environ.get("PATH", "")
os.environ.setdefault("MPLBACKEND", "Agg")

from grader_cli import (  # noqa: E402
    Grades,
    existing_exercises,
    grade_batch,
    nbgrader_autograde,
    nbgrader_course,
    place,
    wrong_kinds,
)

from autograder import fixtures  # noqa: E402


def build_class(submitted: Path, students: int, seed: int) -> dict[tuple[str, str], str]:
    """SUBMITTED/<student>/<assignment>/<notebook>.ipynb; returns (student, notebook) -> kind."""
    rng = random.Random(seed)
    plan = {}
    for number in range(1, students + 1):
        student = f"student{number:03d}"
        for exercise in existing_exercises():
            wrong = wrong_kinds(exercise)
            roll = rng.random()
            kind = "honest" if roll < 0.5 or not wrong else "stub" if roll < 0.65 \
                else rng.choice(wrong)
            place(submitted, student, exercise, fixtures.submission_for(exercise, kind))
            plan[(student, exercise.notebook)] = kind
    return plan


def run_ours(submitted: Path, out: Path, jobs: int) -> tuple[float, Grades]:
    started = time.perf_counter()
    done = grade_batch(submitted, out, "--jobs", str(jobs), "--force", timeout=3600)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        sys.exit(f"grade-batch failed (exit status {done.returncode}):\n{done.stderr[-3000:]}")
    return seconds, Grades.read(out)


def run_nbgrader(course: Path, submitted: Path) -> tuple[float, dict[tuple[str, str], float]]:
    shutil.copytree(submitted, nbgrader_course(course))
    started = time.perf_counter()
    scores = nbgrader_autograde(course)
    return time.perf_counter() - started, scores


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--students", type=int, default=3, help="class size (default 3)")
    parser.add_argument("--jobs", type=int, default=2, help="grade-batch --jobs (default 2)")
    parser.add_argument("--seed", type=int, default=2024, help="seed of the class mix")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="grading-throughput-") as folder:
        root = Path(folder)
        plan = build_class(root / "submitted", args.students, args.seed)
        count = len(plan)
        kinds = [kind.split("/")[0] for kind in plan.values()]
        print(f"class: {args.students} students, {count} notebooks "
              f"({kinds.count('honest')} honest, {kinds.count('stub')} untouched, "
              f"{kinds.count('wrong')} with a classic bug), {os.cpu_count()} CPUs")
        ours_seconds, ours = run_ours(root / "submitted", root / "graded", args.jobs)
        print(f"python -m autograder grade-batch --jobs {args.jobs}: {ours_seconds:.1f} s, "
              f"{count / ours_seconds:.2f} notebooks/s")
        theirs_seconds, theirs = run_nbgrader(root / "course", root / "submitted")
        print(f"nbgrader autograde: {theirs_seconds:.1f} s, "
              f"{count / theirs_seconds:.2f} notebooks/s")
        differ = [(key, plan[key], ours.score(*key), theirs[key]) for key in sorted(plan)
                  if abs(ours.score(*key) - theirs[key]) > 0.01]
    ratio = theirs_seconds / ours_seconds
    print(f"ratio: {ratio:.1f} x nbgrader's throughput")
    print(f"verdicts: {count - len(differ)} of {count} notebooks got the same score from both")
    for (student, notebook), kind, mine, nbgrader in differ:
        print(f"  differ: {student} {notebook} ({kind}): grade-batch {mine:g}, "
              f"nbgrader {nbgrader:g}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
