"""Grade one notebook, top to bottom: read it (`notebook.py`), extract the graded cells, run
them in the sandbox (`runner.py`), score what came back (`scoring.py`) into a result
(`results.py`).

The verdicts use the expected outcomes `suite.expected_outcomes` computed in this process from
`solutions/` (call `prepare` first, in the main thread), so the points agree exactly with the
nbgrader grade cells. Everything that comes back from the sandbox is untrusted data:
`scoring.score_run` checks its shape before it is looked at, and a case whose outcome never
arrived fails with a sentence that says why.
"""

from __future__ import annotations

import os
import re
import resource
import sys
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from . import processes, runner, scoring, suite
from .isolation import Isolation
from .notebook import MAX_CODE_CHARACTERS, NotebookError, NotebookRefused, extract, read_notebook
from .reference import SOLUTIONS, nbgrader_meta, solution_cells
from .results import NotebookResult, count_once, not_graded
from .rubric import EXERCISES, Exercise, exercise_for, item_for
from .sandbox import protocol
from .sandbox.probes import PROBES, load_all

# The course's folder, which notebook code may not open or list (solutions/, the class's work,
# stored expected values, the gradebook) but for data/ and the sandbox's own code.
COURSE = Path(__file__).resolve().parent.parent
SANDBOX = Path(__file__).resolve().parent / "sandbox"
# The grader's virtual environment, whose packages (tzdata, which zoneinfo falls back on) notebook
# code imports in every sandbox mode, bubblewrap's mounting it at /opt/venv: without bubblewrap
# it may lie inside the course's folder, which is otherwise kept out of reach.
VENV = [os.path.realpath(sys.prefix)] if sys.prefix != sys.base_prefix else []

_READY: set[str] = set()  # grade_ids whose expected outcomes prepare() computed
_BROKEN: dict[str, str] = {}  # notebook -> why its reference solution cannot be used
# notebook -> seconds the reference took on its hidden tests (prepare() measures it, the store
# of expected values keeps it): the costliest exercises are graded first (`longest_first`).
_COST: dict[str, float] = {}


class GraderError(Exception):
    """The grader itself cannot work (for example a broken reference solution)."""


@dataclass(frozen=True)
class Options:
    isolation: Isolation
    time_limit: float | None = None  # None: the rubric's limit for each exercise
    memory_limit_mb: int | None = None
    processes: int = 64
    cpus: float = 1.0  # share of the machine's cores one sandbox may use at most
    jobs: int = 1  # notebooks graded at once (--jobs): runner.Limits.sandboxes
    # Feedback shows expected answers for public cases only, unless this is set (an instructor's
    # choice once the deadline has passed): see suite.Case.public.
    show_expected: bool = False
    # Folders, beside the course's own, that notebook code may not open or list: the class's
    # submissions and the output folder with its stored expected values (protocol.Job).
    private: tuple[str, ...] = ()

    def limits(self, exercise: Exercise) -> runner.Limits:
        seconds = self.time_limit or exercise.time_limit
        return runner.Limits(time=seconds, memory_mb=self.memory_limit_mb or
                             exercise.memory_limit_mb,
                             cell_time=max(1.0, min(10.0, seconds / 4)),
                             processes=self.processes, cpus=self.cpus, sandboxes=self.jobs)




# -- recognising and preparing exercises -------------------------------------------------

def recognise(path: Path, notebook: dict | None) -> Exercise | None:
    """The exercise a notebook belongs to: by file name, else by its grade cells' ids."""
    exercise = exercise_for(Path(path).name)
    if exercise is not None or notebook is None:
        return exercise
    found = set()
    for cell in notebook.get("cells", []):
        if isinstance(cell, dict) and isinstance(cell.get("metadata"), dict):
            meta = nbgrader_meta(cell)
            if isinstance(meta, dict) and isinstance(meta.get("grade_id"), str):
                found.add(meta["grade_id"])
    matches = [(len(found & {item.grade_id for item in ex.items}), ex) for ex in EXERCISES]
    count, best = max(matches, key=lambda pair: pair[0])
    return best if count else None


def exercises_in(paths: list[Path]) -> tuple[Exercise, ...]:
    """The exercises a set of notebook files needs, for `prepare` (cheap: by file name, and by
    a quick look at the cells of any file whose name is not an exercise's)."""
    found = []
    for path in paths:
        exercise = exercise_for(Path(path).name)
        if exercise is None:
            try:
                exercise = recognise(path, read_notebook(Path(path)))
            except (NotebookError, OSError):
                continue
        if exercise is not None and exercise not in found:
            found.append(exercise)
    return tuple(found)


def has_reference(exercise: Exercise) -> bool:
    return (SOLUTIONS / exercise.path).is_file()


def prepare(exercises: tuple[Exercise, ...] = EXERCISES) -> list[str]:
    """Compute the expected outcomes of `exercises` from their reference solutions.

    Runs the trusted reference in this process with signal-based time limits, so call it in
    the main thread before grading in threads. Returns one sentence per exercise whose
    reference cannot be used; its notebooks then get 0 points and that sentence.
    """
    problems = []
    for exercise in exercises:
        if exercise.notebook in _BROKEN:
            continue
        started = _cpu_seconds()
        try:
            if not has_reference(exercise):
                raise GraderError(f"the reference solution solutions/{exercise.path} is missing")
            _check_grade_cells(exercise)
            for item in exercise.items:
                _check_reference(exercise, item.grade_id)
        except GraderError as error:
            _BROKEN[exercise.notebook] = str(error)
            problems.append(str(error))
            continue
        _READY.update(item.grade_id for item in exercise.items)
        _COST[exercise.notebook] = _cpu_seconds() - started
    return problems


def _cpu_seconds() -> float:
    """This process's CPU time. Not `time.process_time()`: while a time limit's CPU timer is
    armed (`harness.time_limit`), Linux answers that clock from a total it updates only at
    each scheduler tick, so a reference whose cases take less than a tick reads as free."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def cost(exercise: Exercise | None) -> float:
    """Seconds of CPU the reference took on `exercise`'s hidden tests (0 when not known)."""
    return _COST.get(exercise.notebook, 0.0) if exercise is not None else 0.0


def set_cost(exercise: Exercise, seconds: float) -> None:
    """Record the reference's cost read back from the store of expected values."""
    if isinstance(seconds, (int, float)) and 0 <= seconds < 3600:
        _COST[exercise.notebook] = float(seconds)


def longest_first(exercises: list[Exercise | None]) -> list[int]:
    """The order to grade notebooks of `exercises` in: the exercises whose hidden tests cost the
    reference most come first (a stable sort), so that a pool of sandboxes does not end with
    one long notebook running while the others wait. Results are reported in the given order."""
    return sorted(range(len(exercises)), key=lambda index: -cost(exercises[index]))


def prepared_from_store(exercise: Exercise) -> None:
    """Mark `exercise` ready with expected outcomes read from the store (autograder/expected.py).
    `prepare`'s checks ran when they were stored, on the very files their fingerprint names
    (the grading package with its probes, the suites, the reference and the student copy), so
    they would find what they found then: nothing."""
    if exercise.notebook not in _BROKEN:
        _READY.update(item.grade_id for item in exercise.items)


def _check_reference(exercise: Exercise, grade_id: str) -> None:
    """Refuse, with one sentence, a suite or reference that would judge wrongly: a probe that
    does not exist, a reference that raises anything but the ValueError its exercise promises
    or gives no answer (`prepare` checks the grade cells first, `_check_grade_cells`)."""
    try:
        _, item = item_for(grade_id)
        cases = suite.cases_for(item)
    except Exception as error:
        raise GraderError(f"the hidden tests {grade_id} could not be read "
                          f"({type(error).__name__}: {error})") from None
    load_all()
    unknown = sorted({case.probe for case in cases if case.probe not in PROBES})
    if unknown:
        raise GraderError(f"the hidden tests {grade_id} name a probe that does not exist: "
                          f"{', '.join(unknown)} (known: see autograder/sandbox/probes/)")
    try:
        expected = suite.expected_outcomes(grade_id)
        suite.exercise_cases(exercise)
    except Exception as error:
        raise GraderError(f"the reference solution of {exercise.path} could not be run for "
                          f"{grade_id} ({type(error).__name__}: {error})") from None
    for index, outcome in enumerate(expected):
        if "raised" in outcome and not set(outcome.get("mro", [])) & set(suite.ANSWER_ERRORS):
            raise GraderError(f"the reference solution of {exercise.path} raises "
                              f"{scoring.describe(outcome)} on case {index} of {grade_id} "
                              f"({cases[index].name}); a case expects a value or one of "
                              f"{', '.join(suite.ANSWER_ERRORS)}")
        if "value" not in outcome and "raised" not in outcome:
            raise GraderError(f"the reference solution of {exercise.path} gives no answer for "
                              f"case {index} of {grade_id}: {scoring.describe(outcome)}")


GRADE_CELL_CALL = re.compile(r"""grade_cell\(\s*(['"])(?P<id>[^'"]*)\1""")


def _check_grade_cells(exercise: Exercise) -> None:
    """Every grade cell of the source notebook runs the hidden tests of its own grade_id."""
    for cell in solution_cells(exercise):
        meta = nbgrader_meta(cell)
        if not meta.get("grade") or cell.get("cell_type") != "code":
            continue
        for match in GRADE_CELL_CALL.finditer(cell["source"]):
            if match["id"] != meta.get("grade_id"):
                raise GraderError(
                    f"the grade cell {meta.get('grade_id')!r} of {exercise.path} runs the "
                    f"hidden tests of {match['id']!r}; each grade cell must run its own")


# -- grading -----------------------------------------------------------------------------

def grade_notebook(path: Path, options: Options, shown_as: str | None = None,
                   within: Path | None = None,
                   ahead: runner.Started | None = None,
                   prepared: threading.Event | None = None) -> NotebookResult:
    """Grade one notebook file; every problem becomes a message in the result.

    The file is read by this trusted process, so it must be a file of its own: never a
    symbolic link (to a solution, say) and, with `within`, inside that folder for real.

    With `prepared`, the notebook may be sent to its sandbox while another thread is still
    preparing expected values (`prepare`): it is scored only once `prepared` is set, and then
    exactly as if it had waited for it before starting."""
    path = Path(path)
    shown = shown_as or str(path)
    started = time.monotonic()
    real = Path(os.path.realpath(path))
    protected = (Path(os.path.realpath(SOLUTIONS)), Path(__file__).resolve().parent)
    if path.is_symlink() or any(folder in real.parents for folder in protected) or (
            within is not None and Path(os.path.realpath(within)) not in real.parents):
        result = not_graded(shown, exercise_for(path.name), f"{shown} is a symbolic link or "
                             "not a submitted file of its own; submit the notebook file itself",
                             path)
        result.flags.append("refused: the notebook is a symbolic link or lies outside the "
                            "student's folder")
        return result
    try:
        notebook = read_notebook(path)
    except NotebookRefused as error:
        result = not_graded(shown, exercise_for(path.name),
                             str(error).replace(str(path), shown), path)
        result.flags.append(f"refused: {str(error).replace(str(path), 'the file')}")
        return result
    except NotebookError as error:
        return not_graded(shown, exercise_for(path.name), str(error).replace(str(path), shown),
                           path)
    except OSError as error:
        return not_graded(shown, exercise_for(path.name),
                           f"{shown} could not be read ({error.strerror or error})", path)
    code = sum(len(str(cell.get("source", ""))) for cell in notebook["cells"]
               if isinstance(cell, dict) and cell.get("cell_type") == "code")
    if code > MAX_CODE_CHARACTERS:
        result = not_graded(shown, recognise(path, notebook), f"{shown} holds "
                             f"{code // 2**20} MiB of code, more than the "
                             f"{MAX_CODE_CHARACTERS // 2**20} MiB the grader reads; remove the "
                             "large cells", path)
        result.flags.append(f"refused: more than {MAX_CODE_CHARACTERS // 2**20} MiB of code")
        return result
    exercise = recognise(path, notebook)
    if exercise is None:
        return not_graded(shown, None, f"{shown} is not one of the course's notebooks: its "
                           "name and its graded cells match no exercise in the rubric", path)
    if prepared is None and not _ready(exercise):
        return _unprepared(shown, exercise, path)
    unreadable = cases = None
    try:
        extracted = extract(notebook, exercise)
    except Exception as error:  # a malformed document the reader let through
        unreadable = not_graded(shown, exercise, f"{shown} could not be read as a notebook "
                                f"({type(error).__name__})", path)
    limits = options.limits(exercise)
    if unreadable is None:
        try:
            cases = list(suite.exercise_cases(exercise))
        except Exception:
            if prepared is None:
                raise  # with `prepared`, `prepare` finds the suite unreadable and says so
    if cases is not None:
        job: protocol.Job = {"prelude": extracted.prelude, "cells": extracted.cells,
                             "cases": cases, "cell_timeout": limits.cell_time,
                             "cpu_budget": limits.time,
                             "private": [str(COURSE), *options.private],
                             "allowed": [str(COURSE / "data"), str(SANDBOX), *VENV],
                             "processes": limits.processes}
        run = runner.run(job, limits, options.isolation, exercise.assignment, ahead)
    if prepared is not None:  # the one place a notebook sent ahead waits
        waiting = time.monotonic()
        prepared.wait()
        started += time.monotonic() - waiting  # the wait is not this notebook's time
        if not _ready(exercise):
            return _unprepared(shown, exercise, path)
    if unreadable is not None:
        return unreadable
    if cases is None:
        return _unprepared(shown, exercise, path)
    result = scoring.score_run(exercise, run, limits, shown, options.show_expected,
                       labels={f"setup cell {index + 1}" for index in range(len(extracted.prelude))}
                       | {cell["label"] for cell in extracted.cells})
    result.problems[:0] = extracted.problems
    result.flags += _hard_links(path)
    if run.fork_failed:  # what ran says nothing of the notebook; what was noticed stays
        result = _out_of_processes(shown, exercise, path, OUT_OF_PROCESSES, result.flags)
    elif result.score < result.max_score and options.jobs > 1 \
            and options.isolation.shares_processes:  # graded beside others
        result.grade_alone = _crowded_out(run)
    result.execution_time = round(time.monotonic() - started, 3)
    return result


OUT_OF_PROCESSES = ("the grader could not start one of its own processes for this notebook "
                    "(the process limit of the user running the grader was reached), which is no "
                    "fault of the notebook")
STILL_OUT_OF_PROCESSES = ("the grader could not start one of its own processes for this "
                          "notebook even when graded alone (the process limit of the user "
                          "running the grader was reached), so it is not graded; the next run "
                          "grades it again")
GRADED_AGAIN = ("graded again alone, after the rest: the first time, the grader could not start "
                "one of its own processes for it while other notebooks ran")


CROWDED = ("graded again alone, after the rest: while it ran, another notebook held nearly all "
           "of the processes that the notebooks graded at once share")
COULD_NOT_START = ("graded again alone, after the rest: a thread or process could not be started "
                   "while it ran beside other notebooks, with which it shares one process limit")


def _crowded_out(run: runner.RunResult) -> str:
    """Why a notebook without full marks is graded again alone, where every sandbox's processes
    count against the grader's uid, or "": another sandbox held (nearly) all of the share of
    them while it ran, as the grader saw (processes.watch), or, as the notebook's own results
    say, a thread or process could not be started in it while the grader saw others hold most
    of that share (a hold too short for the grader to see it full). Notebook code can say the
    latter falsely only while classmates really hold those processes: alone, a notebook
    without full marks gains no second grading by saying it, which would make its score the
    better of two in this mode."""
    if run.crowded:
        return CROWDED
    return COULD_NOT_START if run.pressed and scoring.could_not_start(run.events) else ""


def _out_of_processes(shown: str, exercise: Exercise, path: Path, reason: str,
                      flags: list[str]) -> NotebookResult:
    """Not graded, for want of the grader's own processes: the grader's failure (never saved)."""
    result = not_graded(shown, exercise, reason, path)
    result.grader_failed = result.out_of_processes = True
    result.flags = list(dict.fromkeys(flags))
    return result


def graded_alone(first: NotebookResult, path: Path, options: Options, shown_as: str | None = None,
                 within: Path | None = None) -> NotebookResult:
    """A notebook whose first grading found no process to start (`first.out_of_processes`), or
    that was crowded out of its processes (`first.grade_alone`), graded again, once: call it
    with nothing else running. What the first grading noticed stays flagged. When the grader
    again finds no process to start, the notebook is not graded, with that reason, and the next
    run grades it again (a result that is the grader's failure is never saved). Otherwise this
    result is kept, whatever it is. Notebook code can claim either (sandbox/worker.py,
    `_crowded_out`): it gains this one grading alone, and a claim of the first again leaves
    it without a score."""
    again = grade_safely(path, options, shown_as, within)
    exercise = exercise_for(again.notebook)
    if again.out_of_processes and exercise is not None:  # always known when it is set
        seconds = again.execution_time
        again = _out_of_processes(again.path, exercise, path, STILL_OUT_OF_PROCESSES,
                                  first.flags + again.flags)
        again.execution_time = seconds
    else:
        again.flags = list(dict.fromkeys(first.flags + again.flags))
        again.graded_again = first.grade_alone or GRADED_AGAIN
    again.grade_alone = ""  # graded alone once: this result is kept
    return again


def _ready(exercise: Exercise) -> bool:
    return all(item.grade_id in _READY for item in exercise.items)


def _unprepared(shown: str, exercise: Exercise, path: Path) -> NotebookResult:
    why = _BROKEN.get(exercise.notebook, "its expected values were not prepared")
    return not_graded(shown, exercise, f"{exercise.notebook} cannot be graded here: {why}; "
                      "please tell your instructor", path)


def _hard_links(path: Path) -> list[str]:
    """A flag when the notebook file has other names: it may be another student's file."""
    try:
        links = os.lstat(path).st_nlink
    except OSError:
        return []
    return [f"the notebook file has {links} hard links: it is the same file as another one "
            "(another student's?)"] if links > 1 else []


def grade_notebooks(paths: list[Path], options: Options, jobs: int,
                    ahead: dict[Path, runner.Started] | None = None,
                    prepare: Callable[[], object] | None = None) -> list[NotebookResult]:
    """The `grade` command: `paths` graded `jobs` at a time, in their order, each exercise
    counted once (`results.count_once`); `ahead` holds workers `start_ahead` started for them.
    Those notebooks go to their sandboxes at once, while `prepare` (if given) works out the
    expected values in this thread; every notebook is scored once it is done."""
    waiting = ahead or {}
    prepared = threading.Event()
    pool = ThreadPoolExecutor(max_workers=max(1, jobs))
    try:
        futures = {index: pool.submit(grade_safely, path, options, ahead=waiting[Path(path)],
                                      prepared=prepared)
                   for index, path in enumerate(paths) if Path(path) in waiting}
        try:
            if prepare is not None:
                prepare()
        finally:
            prepared.set()
        for index in longest_first([exercise_for(Path(path).name) for path in paths]):
            if index not in futures:
                futures[index] = pool.submit(grade_safely, paths[index], options)
        results = [futures[index].result() for index in range(len(paths))]
        for index, result in enumerate(results):  # with nothing else running now
            if result.out_of_processes or result.grade_alone:
                results[index] = graded_alone(result, paths[index], options)
        return count_once(results)
    except KeyboardInterrupt:
        processes.stop_all()  # end the running sandboxes instead of waiting for them
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


class Ahead(dict):
    """Workers started ahead (`start_ahead`), by notebook path. Leaving the `with` block ends
    every one that was not used, whatever ended the block."""

    def __enter__(self) -> Ahead:
        return self

    def __exit__(self, *exc: object) -> None:
        for worker in self.values():
            worker.discard()


def start_ahead(paths: Iterable[Path], options: Options, jobs: int) -> Ahead:
    """Workers for the first 2 x `jobs` of `paths` whose exercise the file name tells, started
    before the grader reads expected values and notebooks: their start-up (a sandbox, a fresh
    Python) then runs on a core that would otherwise wait. Each waits for its notebook's job
    (`grade_notebook`), using no CPU meanwhile; `Started.discard` ends one that is not used."""
    started = Ahead()
    for path in paths:
        if len(started) >= 2 * max(1, jobs):
            break
        exercise = exercise_for(Path(path).name)
        if exercise is None or Path(path) in started:
            continue
        try:
            worker = runner.start(options.limits(exercise), options.isolation,
                                  exercise.assignment)
        except OSError:  # grading starts the worker itself, and says what went wrong
            worker = None
        if worker is None:
            break
        started[Path(path)] = worker
    return started


def grade_safely(path: Path, options: Options, shown_as: str | None = None,
                 within: Path | None = None,
                 ahead: runner.Started | None = None,
                 prepared: threading.Event | None = None) -> NotebookResult:
    """`grade_notebook`, but a bug in the grader becomes a message instead of ending a batch.
    `ahead` (a worker started for this notebook) is ended when the notebook did not use it."""
    try:
        return grade_notebook(path, options, shown_as, within, ahead, prepared)
    except Exception as error:
        shown = shown_as or str(path)
        result = not_graded(shown, exercise_for(Path(path).name),
                             f"the grader failed on this notebook ({type(error).__name__}: "
                             f"{error}); please report it to your instructor", Path(path))
        result.grader_failed = True
        return result
    finally:
        if ahead is not None:
            ahead.discard()
