"""Grade a whole class: SUBMITTED/<student>/<assignment>/<notebook>.ipynb.

`discovery` decides what to grade (one file per student and exercise) and lists the rest;
`classbook` turns the results into the gradebook's rows (deadlines and overrides applied).

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
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from . import classbook, deadlines, discovery, grading, report, runner, suite
from .rubric import Exercise
from .sandbox.probes import PROBES

PACKAGE = Path(__file__).resolve().parent
DATA = PACKAGE.parent / "data"
# The grading core: a change here can change any score (reports are rebuilt from saved results).
CORE = ("rubric.py", "suite.py", "reference.py", "notebook.py", "grading.py", "runner.py",
        "sandbox/__init__.py", "sandbox/plain.py", "sandbox/harness.py", "sandbox/worker.py",
        "sandbox/probes/__init__.py")


Submission = discovery.Submission


class BatchError(Exception):
    """The class folder cannot be graded; the message is one sentence for a person."""


@dataclass
class Summary:
    graded: int = 0
    unchanged: int = 0
    unreadable: int = 0
    seconds: float = 0.0
    interrupted: bool = False
    not_graded: list[str] = field(default_factory=list)  # "file: reason", for the summary

    def line(self, out: Path) -> str:
        rate = self.graded / self.seconds if self.seconds > 0 else 0.0
        text = (f"graded {self.graded} notebooks, skipped {self.unchanged} unchanged, "
                f"{self.unreadable} could not be graded, in {self.seconds:.1f} s "
                f"({rate:.1f} notebooks/s)")
        if self.interrupted:
            return (f"interrupted: {text}; every notebook graded so far is saved, run the "
                    "same command again to grade the rest")
        listed = ""
        if self.not_graded:
            shown = "".join(f"\n  {entry}" for entry in self.not_graded[:MAX_LISTED])
            more = len(self.not_graded) - MAX_LISTED
            listed = (f"\nnot graded or flagged ({len(self.not_graded)}, all in "
                      f"{out / NOT_GRADED}):{shown}" + (f"\n  ... and {more} more" if more > 0
                                                        else ""))
        return f"{text}; wrote {out / 'grades.csv'}{listed}"


MAX_LISTED = 20
NOT_GRADED = "not-graded.csv"


def discover(submitted: Path, out: Path | None = None,
             assignment: str | None = None) -> discovery.Discovery:
    submitted = Path(submitted)
    if not submitted.exists():
        raise BatchError(f"{submitted} does not exist")
    if not submitted.is_dir():
        raise BatchError(f"{submitted} is not a folder (expected {discovery.LAYOUT})")
    try:
        return discovery.discover(submitted, out, assignment)
    except discovery.LayoutError as error:
        raise BatchError(str(error)) from None


def progress_note(text: str, width: int = 70) -> str:
    """A problem shortened for the progress line at a word boundary; the report has it all."""
    text = " ".join(text.split())
    if len(text) <= width:
        return text
    cut = text[:width + 1].rsplit(" ", 1)[0].rstrip(",;:")
    return f"{cut} ... (see the report)"


def fingerprint(options: grading.Options, exercise: Exercise | None = None) -> str:
    """A hash of everything that decides a score of `exercise`'s notebooks: the grading core,
    the course data, and the exercise's suites, probes and reference solution. A change to
    one exercise regrades only that exercise's notebooks."""
    files = [PACKAGE / name for name in CORE]
    files += [path for path in DATA.rglob("*") if path.is_file()]
    if exercise is not None:
        files.append(grading.SOLUTIONS / exercise.path)
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
    digest.update(repr((options.time_limit, options.memory_limit_mb,
                        options.sandbox.kind)).encode())
    return digest.hexdigest()


def _load(saved: Path, sha: str, grader: str) -> grading.NotebookResult | None:
    try:
        data = json.loads(saved.read_text(encoding="utf-8"))
        if data.get("sha256") == sha and data.get("fingerprint") == grader:
            return grading.NotebookResult.from_dict(data["result"])
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        pass
    return None


def grade_batch(submitted: Path, out: Path, options: grading.Options, jobs: int = 1,
                force: bool = False, progress: TextIO = sys.stderr,
                prepare: Callable[[tuple], object] = grading.prepare,
                assignment: str | None = None, policy: deadlines.Policy | None = None,
                overrides: dict | None = None) -> Summary:
    started = time.monotonic()
    found = discover(submitted, out, assignment)
    submissions = found.submissions
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
        exercise = submission.exercise
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
        prepare(tuple(dict.fromkeys(s.exercise for s in todo)))
    width = len(str(len(todo)))
    pool = ThreadPoolExecutor(max_workers=max(1, jobs), thread_name_prefix="grade")
    try:
        futures = {pool.submit(grading.grade_safely, s.path, options, s.key, s.within): s
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
            note = f"  {progress_note(result.problems[0])}" if result.problems else ""
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
    write_outputs(out, found, results, policy or deadlines.Policy(), overrides or {})
    summary.not_graded = [f"{s.file or s.student}: {s.reason}"
                          for s in found.skipped + found.flagged]
    summary.seconds = time.monotonic() - started
    return summary


def write_outputs(out: Path, found: discovery.Discovery,
                  results: dict[discovery.Submission, grading.NotebookResult],
                  policy: deadlines.Policy, overrides: dict) -> None:
    """grades.csv (a row per student and expected notebook), not-graded.csv, and per student
    a report and one results.json per assignment."""
    rows = classbook.build(found, results, policy, overrides)
    by_student: dict[str, list[classbook.Row]] = {}
    for row in rows:
        by_student.setdefault(row.student, []).append(row)
    for student, mine in by_student.items():
        folder = out / student
        for assignment in found.assignments:
            report.write_results(folder / assignment / "results.json",
                                 [r.result for r in mine if r.exercise.assignment == assignment])
        text = report.report_markdown([r.result for r in mine], student)
        report.write_atomic(folder / "report.md", text + classbook.report_notes(mine))
    report.write_atomic(out / NOT_GRADED, classbook.not_graded_csv(found))
    report.write_atomic(out / "grades.csv", report.grades_csv([row.cells() for row in rows]))
