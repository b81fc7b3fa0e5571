"""Grading throughput: `python -m autograder grade-batch` against `nbgrader autograde`.

    python benchmarks/grading_throughput.py [--students N] [--jobs N] [--seed 2024]
                                            [--repeat 3] [--growth] [--no-nbgrader]
                                            [--classes reference,student-style]
                                            [--serial-nbgrader]

Prints, in one run on this machine (the grader's modules are compiled to bytecode first, as
Python does on a first run and pip did for nbgrader's: `compile_bytecode`):

1. **The sandbox floor**: a bare sandboxed `python -S -c pass` per second with `--jobs` at once
   (the worker's bubblewrap command line, seccomp filter and control groups, no grading):
   what one-process-per-notebook isolation costs before any work; and a grading worker with an
   empty job, for its own start.
2. **The reference class**: N students with a notebook for every exercise, a deterministic mix
   of honest answers (about half), untouched stubs and entries of the wrong-solution corpus
   (tests/corpus/wrong/, drawn so that an entry added later changes only the draws it wins:
   `stable_choice`; entries that loop forever are left out, since the two graders stop
   those at different limits by design, and so are those whose bug keeps state between calls,
   marked `# keeps-state:`, since stock nbgrader runs the notebook's self-checks before the
   hidden tests in the same kernel). Graded by `grade-batch --jobs N` (sandboxed) and by
   nbgrader's own in-kernel workflow in a temporary course (`nbgrader generate_assignment`,
   then `nbgrader autograde` per assignment, with nbgrader's stock preprocessors), scores read
   back from nbgrader's gradebook. grade-batch runs twice: a first run, which works out the
   expected values from solutions/ and stores them, and a run from the start that reuses them
   (every later run; nbgrader's counterpart, generate_assignment, is not timed; the median of
   `--repeat` such runs). Notebooks per second, the ratios, and whether every notebook got the
   same score from both (within 0.01); then what 60x nbgrader would leave for the class against
   what its empty grading workers alone take, and where the median run's CPU went: the
   grader's own process (`python -m autograder`, run through `OWN_CPU`, which notes its CPU at
   exit) and its sandboxes, split into the class's own work, empty workers and the rest.
3. **The student-style class**: the same size, from typical student work: correct but slow
   answers (tests/corpus/student_style/: a next_run that re-parses the expression every minute,
   a run_order that rescans every job at every step), classic bugs, and code that runs until a
   time limit stops it. Throughput of both graders, and the grader's overhead: the share of
   the time grade-batch spent on the notebooks (each from its start to its result, summed) not
   spent running the student's code, where the student's code time is measured by running the
   same cells and hidden tests in this process with no isolation at all.
4. With `--serial-nbgrader`: stock nbgrader on the reference class once more, in a fresh course,
   one assignment after another, as `nbgrader autograde ASSIGNMENT` is usually run (the ratios
   above are against the faster, side-by-side run), and the ratio against that.
5. With `--growth`: grade-batch on honest classes of about 100, 400 and 1,600 notebooks, to
   show that the time grows linearly with the class.

Exit status 1 when any notebook of a class got different scores from the two graders.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import random
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPOSITORY / "tests"))
BIN = str(Path(sys.executable).parent)
os.environ["PATH"] = BIN + os.pathsep + os.environ.get("PATH", "")
os.environ.setdefault("MPLBACKEND", "Agg")

import fixtures  # noqa: E402
from grader_cli import (  # noqa: E402
    NBGRADER,
    Grades,
    nbgrader_autograde,
    nbgrader_course,
    place,
    wrong_kinds,
)

from autograder import cgroups, isolation, runner  # noqa: E402
from autograder.cli import DEFAULT_JOBS  # noqa: E402
from autograder.rubric import EXERCISES, Exercise  # noqa: E402
from autograder.sandbox import protocol  # noqa: E402

STUDENT_STYLE = REPOSITORY / "tests" / "corpus" / "student_style"
TARGET_RATIO = 60  # the throughput target against nbgrader on the reference class
Plan = dict[tuple[str, str], str]  # (student, notebook) -> roster kind
# The course's own settings (folders, gradebook, creating students, the cell time-out), which
# the baseline keeps; the rest of nbgrader_config.py routes autograde through the sandbox.
COURSE_SETTING = re.compile(r"c\.(CourseDirectory|Autograde\.create_student|ExecutePreprocessor)\b")


def keeps_state(kind: str) -> bool:
    """Whether a corpus entry's bug keeps state between calls (its `# keeps-state:` line): its
    score then depends on the calls made before the hidden tests, and nbgrader's stock
    in-kernel grading runs the notebook's self-checks first, where the sandbox runs only the
    student's own cells, so the two may rightly differ on it."""
    path = REPOSITORY / "tests" / "corpus" / f"{kind}.py"
    return path.is_file() and "# keeps-state:" in path.read_text(encoding="utf-8")


def stable_choice(rng: random.Random, options: list[str]) -> str:
    """One of `options`, drawn so that adding an entry to the corpus changes a class's earlier
    draws only where the new entry is drawn (rendezvous hashing on one draw of `rng`, which
    always takes the same draws whatever the options: `rng.choice` would shift every later
    draw of the class)."""
    token = rng.getrandbits(64)
    return min(options, key=lambda option: hashlib.sha256(f"{token}:{option}".encode()).digest())


def reference_kind(rng: random.Random, exercise: Exercise) -> str:
    wrong = [kind for kind in wrong_kinds(exercise) if not keeps_state(kind)]
    roll = rng.random()
    drawn = stable_choice(rng, wrong) if wrong else "honest"
    return "honest" if roll < 0.5 or not wrong else "stub" if roll < 0.65 else drawn


def student_style_kind(rng: random.Random, exercise: Exercise) -> str:
    """Slow-but-correct answers where the corpus has them, bugs, and some code that only a
    time limit stops."""
    slow = [f"student_style/{exercise.notebook}/{p.stem}"
            for p in sorted((STUDENT_STYLE / exercise.notebook).glob("*.py"))]
    wrong = wrong_kinds(exercise)
    endless = [f"wrong/{exercise.notebook}/{p.stem}" for p in sorted(
        (REPOSITORY / "tests" / "corpus" / "wrong" / exercise.notebook).glob("*.py"))
        if "forever" in p.stem or "loop" in p.stem]
    roll = rng.random()
    drawn = {name: stable_choice(rng, options) if options else "honest"
             for name, options in (("slow", slow), ("endless", endless), ("wrong", wrong))}
    if slow and roll < 0.5:
        return drawn["slow"]
    if endless and roll < 0.6:
        return drawn["endless"]
    if wrong and roll < 0.8:
        return drawn["wrong"]
    return "honest"


def build_class(submitted: Path, students: int, seed: int,
                choose: Callable[[random.Random, Exercise], str]) -> Plan:
    """SUBMITTED/<student>/<assignment>/<notebook>.ipynb; returns (student, notebook) -> kind."""
    rng = random.Random(seed)
    plan = {}
    for number in range(1, students + 1):
        student = f"student{number:04d}"
        for exercise in EXERCISES:
            kind = choose(rng, exercise)
            place(submitted, student, exercise, fixtures.submission_for(exercise, kind))
            plan[(student, exercise.notebook)] = kind
    return plan


def describe(plan: Plan) -> str:
    kinds = [kind.split("/")[0] for kind in plan.values()]
    endless = sum("forever" in kind or "loop" in kind for kind in plan.values())
    parts = [f"{kinds.count('honest')} honest"]
    for name, label in (("student_style", "slow but correct"), ("stub", "untouched")):
        if kinds.count(name):
            parts.append(f"{kinds.count(name)} {label}")
    parts.append(f"{kinds.count('wrong') - endless} with a classic bug")
    if endless:
        parts.append(f"{endless} stopped by a time limit")
    return ", ".join(parts)


# `python -m autograder ARGS...` that also writes its own process's CPU seconds (not its
# sandboxes') to the file named by AUTOGRADER_BENCHMARK_CPU when it exits.
OWN_CPU = """
import atexit, os, resource, runpy, sys
def note():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    with open(os.environ["AUTOGRADER_BENCHMARK_CPU"], "w") as file:
        file.write(str(usage.ru_utime + usage.ru_stime))
atexit.register(note)
sys.argv[0] = "autograder"
runpy.run_module("autograder", run_name="__main__", alter_sys=True)
"""


@dataclass
class Run:
    """One grade-batch run: its wall-clock seconds, the CPU seconds of the grader's own process
    and of everything it started (sandboxes, bubblewrap, the workers)."""

    seconds: float
    own_cpu: float
    sandbox_cpu: float


def run_ours(submitted: Path, out: Path, jobs: int) -> tuple[Run, Grades]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with tempfile.NamedTemporaryFile("r", suffix=".cpu") as note:
        started = time.perf_counter()
        done = subprocess.run([sys.executable, "-c", OWN_CPU, "grade-batch", str(submitted),
                               "--out", str(out), "--jobs", str(jobs), "--force"],
                              cwd=REPOSITORY, capture_output=True, text=True, timeout=7200,
                              env={**os.environ, "AUTOGRADER_BENCHMARK_CPU": note.name})
        seconds = time.perf_counter() - started
        own = float(note.read() or 0.0)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    total = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    if done.returncode != 0:
        sys.exit(f"grade-batch failed (exit status {done.returncode}):\n{done.stderr[-3000:]}")
    return Run(seconds, own, max(0.0, total - own)), Grades.read(out)


def stock_nbgrader(course: Path) -> None:
    """Make the temporary course use nbgrader's own in-kernel autograde (the baseline): its
    nbgrader_config.py keeps the course's settings and nothing else, so nbgrader's default
    preprocessors run the notebook and the hidden tests in a kernel. Fails loudly if a
    setting the baseline needs is missing, rather than letting nbgrader skip a config file it
    cannot load and run on its bare defaults."""
    config = course / "nbgrader_config.py"
    settings = [line for line in config.read_text().splitlines() if COURSE_SETTING.match(line)]
    if not any("ExecutePreprocessor.timeout" in line for line in settings) or \
            not any("CourseDirectory.root" in line for line in settings):
        sys.exit(f"{config} no longer sets the course's root folder and cell time-out as the "
                 "benchmark expects")
    config.write_text("import os\n\nc = get_config()  # noqa: F821\n" + "\n".join(settings) + "\n")


def stock_course(course: Path, submitted: Path) -> Path:
    """A temporary course in `course` with stock nbgrader's configuration and a copy of the
    class; returns its submitted/ folder."""
    target = nbgrader_course(course)
    stock_nbgrader(course)
    shutil.copytree(submitted, target)
    return target


def run_nbgrader_serially(course: Path, submitted: Path) -> float:
    """Seconds stock nbgrader takes for the class with its assignments autograded one after
    another in a fresh course of its own, each as `nbgrader autograde ASSIGNMENT`."""
    target = stock_course(course, submitted)
    assignments = sorted({path.name for path in target.glob("*/*") if path.is_dir()})
    started = time.perf_counter()
    for assignment in assignments:
        done = subprocess.run([NBGRADER, "autograde", assignment, "--log-level=ERROR"],
                              cwd=course, capture_output=True, text=True, timeout=7200)
        if done.returncode != 0:
            sys.exit(f"nbgrader autograde {assignment} failed:\n{done.stderr[-3000:]}")
    return time.perf_counter() - started


def run_nbgrader(course: Path, submitted: Path) -> tuple[float, dict[tuple[str, str], float]]:
    stock_course(course, submitted)
    started = time.perf_counter()
    scores = nbgrader_autograde(course)
    return time.perf_counter() - started, scores


def sandbox_floor(jobs: int, runs: int = 40) -> float:
    """Bare sandboxed `python -S -c pass` per second, `jobs` at once: the same bubblewrap
    command line, seccomp filter and control groups as a grading worker, with no grading in
    it. What one-process-per-notebook isolation costs before any work."""
    chosen = isolation.Isolation.choose("auto")
    limits = runner.Limits()
    key = ((limits.memory_mb + isolation.INTERPRETER_MB) * 2**20, limits.processes, limits.cpus)

    def bare(_: int) -> None:
        filter_fd = isolation.seccomp_pipe() if chosen.isolated else None
        command = chosen.command(str(isolation.compiled_package().parent), limits, 1, "floor",
                                 runner.sandbox_uid(), filter_fd)
        python = command.index("--") + 1 if chosen.isolated else 0
        group = cgroups.Cgroup.take(*key)
        try:
            subprocess.run(group.wrap([*command[:python + 1], "-S", "-c", "pass"]),
                           pass_fds=() if filter_fd is None else (filter_fd,),
                           stdin=subprocess.DEVNULL, check=True)
        finally:
            if filter_fd is not None:
                os.close(filter_fd)
            group.give_back(key)

    bare(0)  # warm the file cache
    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        list(pool.map(bare, range(runs)))
    return runs / (time.perf_counter() - started)


def empty_workers(jobs: int, runs: int = 24) -> tuple[float, float]:
    """Grading workers with an empty job per second, `jobs` at once: the floor plus the
    worker's own start (its imports, the guard's snapshot, the relay); and the CPU seconds the
    processes of one such worker use."""
    chosen = isolation.Isolation.choose("auto")
    limits = runner.Limits()
    job: protocol.Job = {"prelude": [], "cells": [], "cases": [], "cell_timeout": 1.0}
    runner.run(job, limits, chosen)  # warm the file cache
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        list(pool.map(lambda _: runner.run(job, limits, chosen), range(runs)))
    rate = runs / (time.perf_counter() - started)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime) / runs
    return rate, cpu


def student_code_seconds(submitted: Path, plan: Plan) -> float:
    """Seconds the class's own code takes with no isolation: every notebook's cells and hidden
    tests run in this process, one after another."""
    from autograder.rubric import exercise_for

    total = 0.0
    for (student, notebook_name), _kind in sorted(plan.items()):
        exercise = exercise_for(notebook_name)
        path = submitted / student / exercise.assignment / f"{notebook_name}.ipynb"
        import nbformat

        notebook = nbformat.read(path, as_version=4)
        started = time.perf_counter()
        fixtures.score_in_process(notebook, exercise)
        total += time.perf_counter() - started
    return total


# One notebook's own work in a fresh, unisolated Python: its cells and its hidden tests (the
# probe modules loaded first), in CPU seconds. argv: notebook path, exercise name.
FRESH_WORK = """
import resource, sys
from autograder import suite
from autograder.notebook import extract, read_notebook
from autograder.rubric import exercise_for
from autograder.sandbox.harness import run_case, run_notebook_code
from autograder.sandbox.probes import load
exercise = exercise_for(sys.argv[2])
extracted = extract(read_notebook(sys.argv[1]), exercise)
cases = suite.exercise_cases(exercise)
def cpu():  # not time.process_time(): a case's armed CPU timer makes it tick-coarse
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime
started = cpu()
load(case["probe"] for case in cases)  # the probes this notebook's tests use, as a sandbox does
namespace = {"__name__": "__main__"}
for _ in run_notebook_code(namespace, extracted.prelude, extracted.cells, 30.0):
    pass
for case in cases:
    run_case(namespace, case)
print(cpu() - started)
"""


def fresh_work_seconds(submitted: Path, plan: Plan) -> float:
    """CPU seconds of the class's own work, each notebook in a fresh Python of its own with no
    isolation (what a sandbox must do at the least, besides starting): its probes' imports, its
    cells and its hidden tests, with temporary files in memory as a sandbox's /tmp is."""
    from autograder.rubric import exercise_for

    memory = "/dev/shm" if os.path.isdir("/dev/shm") else tempfile.gettempdir()
    total = 0.0
    for student, notebook_name in sorted(plan):
        exercise = exercise_for(notebook_name)
        path = submitted / student / exercise.assignment / f"{notebook_name}.ipynb"
        with tempfile.TemporaryDirectory(dir=memory) as folder:
            done = subprocess.run([sys.executable, "-c", FRESH_WORK, str(path), notebook_name],
                                  capture_output=True, text=True, cwd=folder, timeout=600,
                                  env={**os.environ, "PYTHONPATH": str(REPOSITORY),
                                       "TMPDIR": folder})
        total += float(done.stdout.split()[-1])
    return total


def graded_seconds(out: Path) -> float:
    """The time grade-batch spent on each notebook, from starting it to its result, summed
    (Gradescope's execution_time of every results.json): idle workers do not count."""
    import json

    return sum(float(json.loads(path.read_text()).get("execution_time") or 0.0)
               for path in out.glob("students/*/*/results.json"))


def compare(plan: Plan, ours: Grades, theirs: dict[tuple[str, str], float]) -> list[str]:
    return [f"  differ: {student} {notebook} ({plan[(student, notebook)]}): grade-batch "
            f"{ours.score(student, notebook):g}, nbgrader {theirs[(student, notebook)]:g}"
            for student, notebook in sorted(plan)
            if abs(ours.score(student, notebook) - theirs[(student, notebook)]) > 0.01]


def grade_class(root: Path, name: str, plan_of: Callable[[Path], Plan], jobs: int,
                nbgrader: bool, overhead: bool, floor: float, empty: float,
                repeat: int = 3, empty_cpu: float = 0.0,
                serially: bool = False) -> tuple[float, list[str]]:
    """Grade one class both ways and print its lines; returns (ratio or 0, differences)."""
    submitted = root / name / "submitted"
    plan = plan_of(submitted)
    count = len(plan)
    print(f"\n{name} class: {count} notebooks ({describe(plan)})")
    first, ours = run_ours(submitted, root / name / "graded", jobs)
    first_seconds = first.seconds
    print(f"  grade-batch --jobs {jobs}, a first run (works out the expected values): "
          f"{first_seconds:.1f} s, {count / first_seconds:.2f} notebooks/s")
    ours_seconds = first_seconds
    median_run = first
    if not overhead:  # the student-style class's time is its students' own code
        # Again from the start (--force), with the expected values it stored: what every later
        # run of the same grading code costs (nbgrader's generate_assignment is not timed).
        # A class this small takes about a second, so the median of `repeat` runs is shown.
        runs = []
        for _ in range(repeat):
            run, ours = run_ours(submitted, root / name / "graded", jobs)
            runs.append(run)
        median_run = sorted(runs, key=lambda run: run.seconds)[(len(runs) - 1) // 2]
        ours_seconds = statistics.median(run.seconds for run in runs)
        print(f"  grade-batch --jobs {jobs}, expected values stored: {ours_seconds:.2f} s, "
              f"{count / ours_seconds:.2f} notebooks/s ({count / ours_seconds / floor:.0%} of "
              f"the sandbox floor; median of {repeat} runs: "
              f"{', '.join(f'{run.seconds:.2f}' for run in runs)} s)")
        # Where the CPU of the median run went, against what the class's own work needs.
        own = fresh_work_seconds(submitted, plan)
        used = median_run.own_cpu + median_run.sandbox_cpu
        rest = median_run.sandbox_cpu - own - count * empty_cpu
        print(f"  CPU of the median run: {used:.2f} s, {used / count * 1000:.0f} ms a notebook: "
              f"the grader's own process {median_run.own_cpu:.2f} s; its sandboxes "
              f"{median_run.sandbox_cpu:.2f} s: the class's own cells and hidden tests (with "
              f"their probes' imports and temporary files in memory), each notebook in a "
              f"fresh Python with no isolation, {own:.2f} s, {count} empty workers "
              f"{count * empty_cpu:.2f} s, and the rest (the sandboxes' checks and processes "
              f"beyond an empty worker's) {rest:.2f} s")
    if overhead:
        own = student_code_seconds(submitted, plan)
        spent = graded_seconds(root / name / "graded")
        share = max(0.0, 1 - own / spent) if spent else 0.0
        print(f"  the students' own code, run with no isolation: {own:.1f} s; grade-batch spent "
              f"{spent:.1f} s on the notebooks (start to result, summed): grader overhead "
              f"{share:.0%}")
    if not nbgrader:
        return 0.0, []
    try:
        theirs_seconds, theirs = run_nbgrader(root / name / "course", submitted)
    except RuntimeError as error:  # stock nbgrader gives up on a student's whole assignment
        print(f"  nbgrader autograde failed on this class, so there is no ratio: "
              f"{str(error).splitlines()[0]} (a cell that times out makes stock nbgrader "
              "drop the student's assignment)")
        return 0.0, []
    print(f"  nbgrader autograde: {theirs_seconds:.1f} s, "
          f"{count / theirs_seconds:.2f} notebooks/s")
    ratio = theirs_seconds / ours_seconds
    differ = compare(plan, ours, theirs)
    print(f"  ratio: {ratio:.1f} x nbgrader's throughput with the expected values stored, "
          f"{theirs_seconds / first_seconds:.1f} x on a first run; {count - len(differ)} of "
          f"{count} notebooks got the same score from both")
    serial = 0.0
    if serially:
        serial = run_nbgrader_serially(root / name / "course-serial", submitted)
        print(f"  nbgrader autograde, one assignment after another: {serial:.1f} s; ratio "
              f"{serial / ours_seconds:.1f} x with the expected values stored")

    def also(figure: str) -> str:
        """The same figure against the serial run, after a semicolon, when there is one."""
        return f"; {figure} against nbgrader one assignment after another" if serial else ""
    if not overhead:
        # One sandboxed worker per notebook is the design: what it costs against the time that
        # a multiple of nbgrader leaves (the students' code and the hidden tests come on top).
        print(f"  {TARGET_RATIO}x nbgrader would mean {theirs_seconds / TARGET_RATIO:.2f} s for "
              f"this class{also(f'{serial / TARGET_RATIO:.2f} s')}; "
              f"{count} empty grading workers alone take {count / empty:.2f} s "
              f"({count / empty / (theirs_seconds / TARGET_RATIO):.0%} of that)")
        # What no grader that starts a fresh sandboxed process per notebook can go below: the
        # class's own work plus that many empty workers, spread perfectly over every core.
        cores = os.cpu_count() or 1
        bound = (own + count * empty_cpu) / cores
        print(f"  the class's own work and {count} empty workers, {own + count * empty_cpu:.2f} s "
              f"of CPU, take at least {bound:.2f} s on {cores} cores for a grader with a fresh "
              f"sandbox per notebook ({theirs_seconds / bound:.0f}x nbgrader at most"
              f"{also(f'{serial / bound:.0f}x')})")
        # And with workers that cost nothing to start (forked, say, from one that imported
        # everything): the grader's own process, the class's work and the sandboxes' checks
        # (the guard's snapshot and audit hook, a case server, the relay) remain.
        kept = median_run.own_cpu + own + max(rest, 0.0)
        print(f"  with workers that cost nothing to start, the grader's own process, the "
              f"class's own work and the sandboxes' checks, {kept:.2f} s of CPU, would still "
              f"take at least {kept / cores:.2f} s ({theirs_seconds * cores / kept:.0f}x "
              f"nbgrader at most{also(f'{serial * cores / kept:.0f}x')})")
    return ratio, differ


def growth(root: Path, jobs: int, seed: int) -> None:
    per_student = len(EXERCISES)
    print(f"\ngrowth (honest work, grade-batch --jobs {jobs}):")
    print("  notebooks   seconds   notebooks/s   seconds per 100")
    for target in (100, 400, 1600):
        students = max(1, round(target / per_student))
        submitted = root / f"growth-{target}" / "submitted"
        build_class(submitted, students, seed, lambda rng, exercise: "honest")
        run, _ = run_ours(submitted, root / f"growth-{target}" / "graded", jobs)
        seconds = run.seconds
        count = students * per_student
        print(f"  {count:>9}   {seconds:>7.1f}   {count / seconds:>11.2f}   "
              f"{100 * seconds / count:>15.2f}")
        shutil.rmtree(root / f"growth-{target}")


def compile_bytecode() -> None:
    """Compile the grader's modules to bytecode, as Python does on their first import unless
    PYTHONDONTWRITEBYTECODE is set (some containers set it): nbgrader's modules got theirs when
    pip installed them, so both graders start from bytecode. Written to the usual
    __pycache__ folders, which git ignores."""
    import compileall

    compileall.compile_dir(REPOSITORY / "autograder", quiet=1)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--students", type=int, default=3, help="class size (default 3)")
    parser.add_argument("--jobs", type=int, default=DEFAULT_JOBS,
                        help=f"grade-batch --jobs (default {DEFAULT_JOBS}, the grader's own)")
    parser.add_argument("--seed", type=int, default=2024, help="seed of the class mix")
    parser.add_argument("--growth", action="store_true",
                        help="also time classes of 100, 400 and 1,600 notebooks")
    parser.add_argument("--no-nbgrader", action="store_true",
                        help="grade with grade-batch only (no comparison)")
    parser.add_argument("--repeat", type=int, default=3,
                        help="runs with the expected values stored, of which the median counts "
                             "(default 3)")
    parser.add_argument("--serial-nbgrader", action="store_true",
                        help="also time stock nbgrader on the reference class one assignment "
                             "after another")
    parser.add_argument("--classes", default="reference,student-style",
                        help="which classes to grade, comma-separated (default: both)")
    args = parser.parse_args(argv)
    print(f"{os.cpu_count()} CPUs, sandbox: {isolation.Isolation.choose('auto').kind}")
    compile_bytecode()
    floor = sandbox_floor(args.jobs)
    print(f"sandbox floor: {floor:.1f} bare sandboxed `python -S -c pass`/s with {args.jobs} at "
          "once")
    empty, empty_cpu = empty_workers(args.jobs)
    print(f"an empty grading worker: {empty:.1f}/s with {args.jobs} at once, "
          f"{1000 * empty_cpu:.1f} ms of CPU each")
    differences = []
    with tempfile.TemporaryDirectory(prefix="grading-throughput-") as folder:
        root = Path(folder)
        wanted = set(args.classes.split(","))
        for name, choose, overhead in (("reference", reference_kind, False),
                                       ("student-style", student_style_kind, True)):
            if name not in wanted:
                continue
            ratio, differ = grade_class(
                root, name, lambda submitted, choose=choose: build_class(
                    submitted, args.students, args.seed, choose),
                args.jobs, not args.no_nbgrader, overhead, floor, empty, max(1, args.repeat),
                empty_cpu, args.serial_nbgrader and not overhead)
            differences += differ
        if args.growth:
            growth(root, args.jobs, args.seed)
    for line in differences:
        print(line)
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main())
