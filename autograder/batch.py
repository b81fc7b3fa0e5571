"""Grade a whole class: SUBMITTED/<student>/<assignment>/<notebook>.ipynb.

Each graded notebook's result is saved at once under DIR/<student>/.results/ together with the
hash of the notebook's bytes and a fingerprint of the grader (rubric, suites, probes, reference
solutions, limits). A rerun reuses every saved result whose notebook and grader are unchanged,
so an interrupted batch loses nothing it already graded. Notebooks are graded by a pool of
threads, each of which drives one sandbox process at a time.
"""

from __future__ import annotations

import hashlib
import json
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from . import grading, report, runner, suite
from .rubric import Exercise
from .sandbox.probes import PROBES

PACKAGE = Path(__file__).resolve().parent
DATA = PACKAGE.parent / "data"
SUITES = PACKAGE / "suites"
PROBE_MODULES = PACKAGE / "sandbox" / "probes"


def core_files() -> list[Path]:
    """Every file of the package that is not one exercise's own (its suites, its probes): a
    change to any of them may change any verdict, so it regrades every notebook. Found by
    listing the package, never by a hand-kept list."""
    found = []
    for path in PACKAGE.rglob("*"):
        if not path.is_file() or "__pycache__" in path.parts or path.suffix in (".pyc", ".pyo"):
            continue
        if path.parent == SUITES and path.name != "__init__.py":
            continue
        if path.parent == PROBE_MODULES and path.name != "__init__.py":
            continue
        found.append(path)
    return found


class BatchError(Exception):
    """The class folder cannot be graded; the message is one sentence for a person."""


@dataclass(frozen=True)
class Submission:
    student: str
    assignment: str
    path: Path

    @property
    def key(self) -> str:
        return f"{self.student}/{self.assignment}/{self.path.name}"

    def saved_result(self, out: Path) -> Path:
        return out / self.student / ".results" / self.assignment / f"{self.path.name}.json"


@dataclass
class Summary:
    graded: int = 0
    unchanged: int = 0
    unreadable: int = 0
    seconds: float = 0.0
    interrupted: bool = False

    def line(self, out: Path) -> str:
        rate = self.graded / self.seconds if self.seconds > 0 else 0.0
        text = (f"graded {self.graded} notebooks, skipped {self.unchanged} unchanged, "
                f"{self.unreadable} could not be graded, in {self.seconds:.1f} s "
                f"({rate:.1f} notebooks/s)")
        if self.interrupted:
            return (f"interrupted: {text}; every notebook graded so far is saved, run the "
                    "same command again to grade the rest")
        return f"{text}; wrote {out / 'grades.csv'}"


def discover(submitted: Path, out: Path | None = None) -> list[Submission]:
    submitted = Path(submitted)
    if not submitted.exists():
        raise BatchError(f"{submitted} does not exist")
    if not submitted.is_dir():
        raise BatchError(f"{submitted} is not a folder (expected SUBMITTED/<student>/"
                         "<assignment>/<notebook>.ipynb)")
    skip = Path(out).resolve() if out else None
    found = []
    for path in sorted(submitted.glob("*/*/*.ipynb")):
        parts = path.relative_to(submitted).parts
        if any(part.startswith(".") for part in parts):
            continue  # .ipynb_checkpoints and other hidden folders
        if skip and (path.resolve() == skip or skip in path.resolve().parents):
            continue
        if path.is_file():
            found.append(Submission(parts[0], parts[1], path))
    if not found:
        raise BatchError(f"{submitted} holds no notebooks (expected SUBMITTED/<student>/"
                         "<assignment>/<notebook>.ipynb)")
    return found


def fingerprint(options: grading.Options, exercise: Exercise | None = None) -> str:
    """A hash of everything that decides a score of `exercise`'s notebooks: every file of the
    grading package (`core_files`), the course data, the limits, and the exercise's suites,
    probes, reference solution and student copy (which decides the public cases). A change to
    one exercise regrades only that exercise's notebooks."""
    files = core_files()
    files += [path for path in DATA.rglob("*") if path.is_file()]
    if exercise is not None:
        files.append(grading.SOLUTIONS / exercise.path)
        files.append(suite.RELEASE / exercise.path)
        for item in exercise.items:
            files.append(PACKAGE / "suites" / f"{item.suite}.py")
            try:
                probes = {case.probe for case in suite.cases_for(item)}
            except Exception:  # a missing or broken suite: its file's hash says enough
                probes = set()
            for name in probes:
                module = sys.modules.get(getattr(PROBES.get(name), "__module__", ""))
                if module is not None and getattr(module, "__file__", None):
                    files.append(Path(module.__file__))
    digest = hashlib.sha256()
    for path in sorted(set(files)):
        digest.update(str(path).encode() + b"\0")
        try:
            digest.update(path.read_bytes())
        except OSError:
            digest.update(b"<missing>")
        digest.update(b"\0")
    limits = options.limits(exercise) if exercise is not None else None
    digest.update(repr((options.time_limit, options.memory_limit_mb, options.processes,
                        options.sandbox.kind, options.show_expected, limits)).encode())
    return digest.hexdigest()


def _load(saved: Path, sha: str, grader: str) -> grading.NotebookResult | None:
    try:
        data = json.loads(saved.read_text(encoding="utf-8"))
        if data.get("sha256") == sha and data.get("fingerprint") == grader:
            result = grading.NotebookResult.from_dict(data["result"])
            # A time-out may be the machine's doing, not the notebook's: never final.
            return None if result.timed_out else result
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        pass
    return None


def grade_batch(submitted: Path, out: Path, options: grading.Options, jobs: int = 1,
                force: bool = False, progress: TextIO = sys.stderr,
                prepare: Callable[[tuple], object] = grading.prepare) -> Summary:
    started = time.monotonic()
    submissions = discover(submitted, out)
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise BatchError(f"{out} exists and is not a folder")
    graders: dict[Exercise | None, str] = {}
    results: dict[Submission, grading.NotebookResult] = {}
    hashes: dict[Submission, str] = {}
    submission_grader: dict[Submission, str] = {}
    todo = []
    summary = Summary()
    for submission in submissions:
        try:
            hashes[submission] = hashlib.sha256(submission.path.read_bytes()).hexdigest()
        except OSError:
            hashes[submission] = ""
        exercise = next(iter(grading.exercises_in([submission.path])), None)
        if exercise not in graders:
            graders[exercise] = fingerprint(options, exercise)
        submission_grader[submission] = graders[exercise]
        saved = None if force else _load(submission.saved_result(out), hashes[submission],
                                         graders[exercise])
        if saved is None:
            todo.append(submission)
        else:
            results[submission] = saved
            summary.unchanged += 1
    if todo:
        prepare(grading.exercises_in([s.path for s in todo]))
    width = len(str(len(todo)))
    pool = ThreadPoolExecutor(max_workers=max(1, jobs), thread_name_prefix="grade")
    try:
        futures = {pool.submit(grading.grade_safely, s.path, options, s.key, submitted): s
                   for s in todo}
        for done, future in enumerate(as_completed(futures), start=1):
            submission = futures[future]
            result = future.result()
            results[submission] = result
            summary.graded += 1
            summary.unreadable += not result.readable
            if not result.grader_failed:
                saved = {"sha256": hashes[submission],
                         "fingerprint": submission_grader[submission],
                         "result": result.to_dict()}
                report.write_atomic(submission.saved_result(out), json.dumps(saved))
            note = f"  {result.problems[0][:70]}" if result.problems else ""
            print(f"[{done:>{width}}/{len(todo)}] {submission.key}  {report.points(result.score)}"
                  f"/{report.points(result.max_score)}  {result.execution_time:.2f} s{note}",
                  file=progress, flush=True)
    except KeyboardInterrupt:
        runner.stop_all()
        pool.shutdown(wait=True, cancel_futures=True)
        summary.interrupted = True
        summary.seconds = time.monotonic() - started
        return summary
    pool.shutdown(wait=True)
    write_outputs(out, submissions, results)
    summary.seconds = time.monotonic() - started
    return summary


def write_outputs(out: Path, submissions: list[Submission],
                  results: dict[Submission, grading.NotebookResult]) -> None:
    by_student: dict[str, list[Submission]] = {}
    for submission in submissions:
        by_student.setdefault(submission.student, []).append(submission)
    counted: dict[Submission, grading.NotebookResult] = {}
    for student, mine in by_student.items():
        found = grading.count_once([results[submission] for submission in mine])
        counted.update(zip(mine, found, strict=True))
        report.write_results(out / student / "results.json", found)
        report.write_atomic(out / student / "report.md", report.report_markdown(found, student))
    rows = [(s.student, s.assignment, s.path.name.removesuffix(".ipynb"), counted[s].score,
             counted[s].max_score) for s in submissions]
    report.write_atomic(out / "grades.csv", report.grades_csv(rows))
