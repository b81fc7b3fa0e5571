"""Grade one notebook: read it, find the graded cells, run them sandboxed, score the outcomes.

The verdicts come from `suite.score` with the expected outcomes `suite.expected_outcomes`
computed in this process from `solutions/` (call `prepare` first, in the main thread), so the
points agree exactly with the nbgrader grade cells. Everything that comes back from the
sandbox is untrusted data: it is checked for shape before it is looked at, and a case whose
outcome never arrived fails with a sentence that says why.
"""

from __future__ import annotations

import os
import re
import time
from dataclasses import asdict, dataclass, field, replace
from functools import cache
from pathlib import Path

from . import runner, suite
from .isolation import Isolation
from .notebook import MAX_CODE_CHARACTERS, NotebookError, NotebookRefused, extract, read_notebook
from .reference import SOLUTIONS, nbgrader_meta, source_notebook
from .rubric import EXERCISES, Exercise, exercise_for, item_for
from .sandbox import plain, protocol
from .sandbox.probes import PROBES

MAX_CELL_PROBLEMS = 20
MAX_FLAGS = 20
_READY: set[str] = set()  # grade_ids whose expected outcomes prepare() computed
_BROKEN: dict[str, str] = {}  # notebook -> why its reference solution cannot be used


class GraderError(Exception):
    """The grader itself cannot work (for example a broken reference solution)."""


@dataclass(frozen=True)
class Options:
    isolation: Isolation
    time_limit: float | None = None  # None: the rubric's limit for each exercise
    memory_limit_mb: int | None = None
    processes: int = 64
    # Feedback shows expected answers for public cases only, unless this is set (an instructor's
    # choice once the deadline has passed): see suite.Case.public.
    show_expected: bool = False

    def limits(self, exercise: Exercise) -> runner.Limits:
        seconds = self.time_limit or exercise.time_limit
        return runner.Limits(time=seconds, memory_mb=self.memory_limit_mb or
                             exercise.memory_limit_mb,
                             cell_time=max(1.0, min(10.0, seconds / 4)),
                             processes=self.processes)


@dataclass
class TestResult:
    name: str
    score: float
    max_score: float
    output: str  # why it failed, or "passed"
    passed: bool
    # Gradescope's visibility: "visible" when the output may show the expected answer (a public
    # case, or --show-expected), else "after_due_date".
    visibility: str = "visible"


@dataclass
class ItemResult:
    grade_id: str
    title: str
    score: float
    max_score: float
    tests: list[TestResult]


@dataclass
class NotebookResult:
    path: str  # as the person who ran the grader named it
    notebook: str  # the exercise's notebook name, or the file's stem when not recognised
    assignment: str
    score: float
    max_score: float
    items: list[ItemResult] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    execution_time: float = 0.0
    stdout: str = ""
    stderr: str = ""
    readable: bool = True  # False when the file could not be read or recognised
    grader_failed: bool = False  # a bug in the grader, not the notebook: never saved
    # What the grader noticed as tampering (a refused file, forged or duplicated outcomes on
    # the results channel, poisoned probes, refused operations): one sentence each, for the
    # instructor.
    flags: list[str] = field(default_factory=list)
    timed_out: bool = False  # a cell, a test or the notebook hit a time limit: never final

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> NotebookResult:
        items = [ItemResult(**{**item, "tests": [TestResult(**t) for t in item["tests"]]})
                 for item in data["items"]]
        return cls(**{**data, "items": items})


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
        try:
            if not has_reference(exercise):
                raise GraderError(f"the reference solution solutions/{exercise.path} is missing")
            for item in exercise.items:
                _check_reference(exercise, item.grade_id)
        except GraderError as error:
            _BROKEN[exercise.notebook] = str(error)
            problems.append(str(error))
            continue
        _READY.update(item.grade_id for item in exercise.items)
    return problems


def _check_reference(exercise: Exercise, grade_id: str) -> None:
    """Refuse, with one sentence, a suite or reference that would judge wrongly: a probe that
    does not exist, a reference that raises anything but the ValueError its exercise promises
    or gives no answer, a grade cell that calls the hidden tests of another item."""
    try:
        _, item = item_for(grade_id)
        cases = suite.cases_for(item)
    except Exception as error:
        raise GraderError(f"the hidden tests {grade_id} could not be read "
                          f"({type(error).__name__}: {error})") from None
    unknown = sorted({case.probe for case in cases if case.probe not in PROBES})
    if unknown:
        raise GraderError(f"the hidden tests {grade_id} name a probe that does not exist: "
                          f"{', '.join(unknown)} (known: see autograder/sandbox/probes/)")
    _check_grade_cells(exercise)
    try:
        expected = suite.expected_outcomes(grade_id)
        _cases(exercise)
    except Exception as error:
        raise GraderError(f"the reference solution of {exercise.path} could not be run for "
                          f"{grade_id} ({type(error).__name__}: {error})") from None
    for index, outcome in enumerate(expected):
        if "raised" in outcome and not set(outcome.get("mro", [])) & set(suite.ANSWER_ERRORS):
            raise GraderError(f"the reference solution of {exercise.path} raises "
                              f"{suite.describe(outcome)} on case {index} of {grade_id} "
                              f"({cases[index].name}); a case expects a value or one of "
                              f"{', '.join(suite.ANSWER_ERRORS)}")
        if "value" not in outcome and "raised" not in outcome:
            raise GraderError(f"the reference solution of {exercise.path} gives no answer for "
                              f"case {index} of {grade_id}: {suite.describe(outcome)}")


GRADE_CELL_CALL = re.compile(r"""grade_cell\(\s*(['"])(?P<id>[^'"]*)\1""")


def _check_grade_cells(exercise: Exercise) -> None:
    """Every grade cell of the source notebook runs the hidden tests of its own grade_id."""
    for cell in source_notebook(exercise).cells:
        meta = nbgrader_meta(cell)
        if not meta.get("grade") or cell.get("cell_type") != "code":
            continue
        for match in GRADE_CELL_CALL.finditer(cell.source):
            if match["id"] != meta.get("grade_id"):
                raise GraderError(
                    f"the grade cell {meta.get('grade_id')!r} of {exercise.path} runs the "
                    f"hidden tests of {match['id']!r}; each grade cell must run its own")


@cache
def _cases(exercise: Exercise) -> tuple[protocol.Case, ...]:
    return tuple(job for item in exercise.items for job in suite.jobs(item))


# -- grading -----------------------------------------------------------------------------

def grade_notebook(path: Path, options: Options, shown_as: str | None = None,
                   within: Path | None = None) -> NotebookResult:
    """Grade one notebook file; every problem becomes a message in the result.

    The file is read by this trusted process, so it must be a file of its own: never a
    symbolic link (to a solution, say) and, with `within`, inside that folder for real."""
    path = Path(path)
    shown = shown_as or str(path)
    started = time.monotonic()
    real = Path(os.path.realpath(path))
    protected = (Path(os.path.realpath(SOLUTIONS)), Path(__file__).resolve().parent)
    if path.is_symlink() or any(folder in real.parents for folder in protected) or (
            within is not None and Path(os.path.realpath(within)) not in real.parents):
        result = _not_graded(shown, exercise_for(path.name), f"{shown} is a symbolic link or "
                             "not a submitted file of its own; submit the notebook file itself",
                             path)
        result.flags.append("refused: the notebook is a symbolic link or lies outside the "
                            "student's folder")
        return result
    try:
        notebook = read_notebook(path)
    except NotebookRefused as error:
        result = _not_graded(shown, exercise_for(path.name),
                             str(error).replace(str(path), shown), path)
        result.flags.append(f"refused: {str(error).replace(str(path), 'the file')}")
        return result
    except NotebookError as error:
        return _not_graded(shown, exercise_for(path.name), str(error).replace(str(path), shown),
                           path)
    except OSError as error:
        return _not_graded(shown, exercise_for(path.name),
                           f"{shown} could not be read ({error.strerror or error})", path)
    code = sum(len(str(cell.get("source", ""))) for cell in notebook.cells
               if isinstance(cell, dict) and cell.get("cell_type") == "code")
    if code > MAX_CODE_CHARACTERS:
        result = _not_graded(shown, recognise(path, notebook), f"{shown} holds "
                             f"{code // 2**20} MiB of code, more than the "
                             f"{MAX_CODE_CHARACTERS // 2**20} MiB the grader reads; remove the "
                             "large cells", path)
        result.flags.append(f"refused: more than {MAX_CODE_CHARACTERS // 2**20} MiB of code")
        return result
    exercise = recognise(path, notebook)
    if exercise is None:
        return _not_graded(shown, None, f"{shown} is not one of the course's notebooks: its "
                           "name and its graded cells match no exercise in the rubric", path)
    if not all(item.grade_id in _READY for item in exercise.items):
        why = _BROKEN.get(exercise.notebook, "its expected values were not prepared")
        return _not_graded(shown, exercise, f"{exercise.notebook} cannot be graded here: {why}; "
                           "please tell your instructor", path)
    try:
        extracted = extract(notebook, exercise)
    except Exception as error:  # a malformed document the reader let through
        return _not_graded(shown, exercise, f"{shown} could not be read as a notebook "
                           f"({type(error).__name__})", path)
    limits = options.limits(exercise)
    job: protocol.Job = {"prelude": extracted.prelude, "cells": extracted.cells,
           "cases": list(_cases(exercise)), "cell_timeout": limits.cell_time,
           "cpu_budget": limits.time}
    run = runner.run(job, limits, options.isolation, exercise.assignment)
    result = score_run(exercise, run, limits, shown, options.show_expected,
                       labels={f"setup cell {index + 1}" for index in range(len(extracted.prelude))}
                       | {cell["label"] for cell in extracted.cells})
    result.problems[:0] = extracted.problems
    result.flags += _hard_links(path)
    result.execution_time = round(time.monotonic() - started, 3)
    return result


def _hard_links(path: Path) -> list[str]:
    """A flag when the notebook file has other names: it may be another student's file."""
    try:
        links = os.lstat(path).st_nlink
    except OSError:
        return []
    return [f"the notebook file has {links} hard links: it is the same file as another one "
            "(another student's?)"] if links > 1 else []


def grade_safely(path: Path, options: Options, shown_as: str | None = None,
                 within: Path | None = None) -> NotebookResult:
    """`grade_notebook`, but a bug in the grader becomes a message instead of ending a batch."""
    try:
        return grade_notebook(path, options, shown_as, within)
    except Exception as error:
        shown = shown_as or str(path)
        result = _not_graded(shown, exercise_for(Path(path).name),
                             f"the grader failed on this notebook ({type(error).__name__}: "
                             f"{error}); please report it to your instructor", Path(path))
        result.grader_failed = True
        return result


def score_run(exercise: Exercise, run: runner.RunResult, limits: runner.Limits,
              shown: str, show_expected: bool = False,
              labels: set[str] | frozenset[str] = frozenset()) -> NotebookResult:
    """Verdicts for every case of `exercise` from what one sandbox run reported.

    A cell is named only by a label the grader itself gave it (`labels`, from the job), never
    by text from the sandbox. Outcomes for cases the job did not ask for, a second outcome for
    one case (unless the worker's relay marks it tampered) and events after "done" are ignored
    and flagged as tampering, as are the flags the relay reports."""
    wanted = {case["id"] for case in _cases(exercise)}
    outcomes: dict[str, dict] = {}
    problems: list[str] = []
    flags: list[str] = []
    cell_problems = 0
    forged = duplicated = after_done = 0
    done = stopped = timed_out = False
    for event in run.events:
        kind, ident = event.get("event"), event.get("id")
        if done:
            after_done += 1
        elif kind == "done":
            done = True
        elif kind == "case":
            outcome = clean_outcome(event.get("outcome"))
            if not isinstance(ident, str) or ident not in wanted or outcome is None:
                forged += 1
            elif ident not in outcomes:
                outcomes[ident] = outcome
                timed_out = timed_out or "timeout" in outcome
            elif "tampered" in outcome:  # the worker's relay says the case was tampered with
                outcomes[ident] = outcome
            else:
                duplicated += 1
        elif kind == "cell":
            cell_problems += 1
            error = event.get("error")
            timed_out = timed_out or isinstance(error, dict) and "timeout" in error
            if cell_problems <= MAX_CELL_PROBLEMS:
                problems.append(_cell_problem(event, labels))
        elif kind == "flag" and isinstance(event.get("text"), str) and len(flags) < MAX_FLAGS:
            text = plain_text(event["text"], 200)
            if text not in flags:
                flags.append(text)
        elif kind == "stopped":
            stopped = True
        else:
            forged += 1
    flags += [f"the results channel carried {count} {what}" for count, what in (
        (forged, "outcomes or events the grader did not ask for or could not read"),
        (duplicated, "second outcomes for tests that already had one"),
        (after_done, "events after the end of the run")) if count]
    if cell_problems > MAX_CELL_PROBLEMS:
        problems.append(f"... and {cell_problems - MAX_CELL_PROBLEMS} more cells failed")
    died = sorted({outcome["died"] for outcome in outcomes.values() if "died" in outcome})
    if died:
        count = sum(1 for outcome in outcomes.values() if "died" in outcome)
        problems.append(f"in {count} hidden test{'s' if count > 1 else ''} the code under test "
                        f"ended its process ({died[0].rsplit('(', 1)[-1].rstrip(')')}"
                        f"{' and others' if len(died) > 1 else ''}); those tests count as "
                        "failed")
    missing_reason = _missing_reason(run, limits, stopped)
    timed_out = timed_out or run.timed_out or stopped
    if missing_reason and len(outcomes) < len(wanted):
        problems.append(missing_reason[0])
    if run.dropped_events:
        problems.append(f"{run.dropped_events} results sent back by the grading process could "
                        "not be read and were ignored")
    for name, total in (("printed", run.stdout_bytes), ("wrote to stderr", run.stderr_bytes)):
        if total > runner.OUTPUT_CAP:
            problems.append(f"the notebook {name} {total} bytes; only the first "
                            f"{runner.OUTPUT_CAP // 1024} KiB were kept")

    items = []
    for item in exercise.items:
        verdicts = suite.score(exercise, item, outcomes, show_expected)
        tests = []
        for index, verdict in enumerate(verdicts):
            message = verdict.message
            if suite.case_id(item, index) not in outcomes:
                detail = missing_reason[1] if missing_reason else \
                    "no result came back for this test"
                message = f"{verdict.case.call_text()}: {detail}"
            tests.append(TestResult(
                name=f"{exercise.notebook} · {item.title}: {verdict.case.name}",
                score=round(verdict.points, 4), max_score=round(verdict.max_points, 4),
                output="passed" if verdict.passed else message, passed=verdict.passed,
                visibility="visible" if show_expected or verdict.case.public
                else "after_due_date"))
        items.append(ItemResult(item.grade_id, item.title, suite.item_points(verdicts),
                                item.points, tests))
    return NotebookResult(
        path=shown, notebook=exercise.notebook, assignment=exercise.assignment,
        score=round(sum(item.score for item in items), 2), max_score=exercise.max_score,
        items=items, problems=problems, execution_time=round(run.elapsed, 3),
        stdout=run.stdout, stderr=run.stderr, flags=flags, timed_out=timed_out)


def plain_text(text: str, limit: int) -> str:
    """`text` with control characters replaced and cut to `limit` characters."""
    cleaned = "".join(c if c.isprintable() else "?" for c in text[:limit])
    return cleaned.encode("utf-8", "replace").decode("utf-8")


def _missing_reason(run: runner.RunResult, limits: runner.Limits,
                    stopped: bool = False) -> tuple[str, str] | None:
    """(problem for the notebook, detail for each test) when the run ended before the end."""
    if stopped:
        return (f"grading stopped at the notebook's CPU time limit of {limits.time:g} s; the "
                "tests that had not run count as failed",
                f"no result: grading stopped at the notebook's CPU time limit of "
                f"{limits.time:g} s (a loop that never ends, or very slow code?)")
    if run.timed_out:
        return (f"grading stopped after {limits.backstop:g} s of waiting (the notebook's code "
                "waited instead of computing); the tests that had not finished count as failed",
                f"no result: grading stopped after {limits.backstop:g} s of waiting "
                "(code that sleeps or waits for something that never comes?)")
    if run.finished:
        return None
    code = run.returncode
    if code is not None and code < 0:
        how = {9: "was killed (over its memory or process limit?)", 24: "used up its CPU time",
               11: "crashed"}.get(
            -code, f"was stopped by signal {-code}")
        ended = f"the grading process {how}"
    elif code is None:
        ended = "the grading process did not start"
    else:
        ended = f"the notebook's code ended the grading process (exit status {code})"
    return (f"{ended} before every test had run; the missing tests count as failed",
            f"no result: {ended} before this test finished")


def _cell_problem(event: dict, labels: set[str] | frozenset[str]) -> str:
    label = event.get("label")
    label = label if isinstance(label, str) and label in labels else "a cell"
    error = clean_outcome(event.get("error"))
    if error is None:
        return f"{label} failed"
    if "timeout" in error:
        return f"{label} ran longer than {error['timeout']:g} s of CPU time and was stopped"
    return f"{label} raised {suite.describe(error)}"


def _not_graded(shown: str, exercise: Exercise | None, reason: str, path: Path) -> NotebookResult:
    if exercise is None:
        return NotebookResult(path=shown, notebook=Path(path).name.removesuffix(".ipynb"),
                              assignment="", score=0.0, max_score=0.0, problems=[reason],
                              readable=False)
    items = [ItemResult(item.grade_id, item.title, 0.0, item.points,
                        [TestResult(f"{exercise.notebook} · {item.title}", 0.0, item.points,
                                    f"not graded: {reason}", False)])
             for item in exercise.items]
    return NotebookResult(path=shown, notebook=exercise.notebook,
                          assignment=exercise.assignment, score=0.0,
                          max_score=exercise.max_score, items=items, problems=[reason],
                          readable=False)


def count_once(results: list[NotebookResult]) -> list[NotebookResult]:
    """One student's results with every exercise counted once: a second notebook of the same
    exercise (a Jupyter "-Copy1", the same file in another folder) scores nothing. The copy
    named exactly like the exercise counts, else the first one."""
    counted: dict[str, int] = {}
    for index, result in enumerate(results):
        if result.max_score <= 0:
            continue
        first = counted.get(result.notebook)
        if first is None or (_named_as_exercise(result)
                             and not _named_as_exercise(results[first])):
            counted[result.notebook] = index
    adjusted = []
    for index, result in enumerate(results):
        first = counted.get(result.notebook, index)
        if first == index or result.max_score <= 0:
            adjusted.append(result)
            continue
        why = (f"not counted: {results[first].path} is the notebook graded for "
               f"{result.notebook}; each exercise counts once")
        adjusted.append(replace(result, score=0.0, max_score=0.0, items=[],
                                problems=[why, *result.problems], readable=False))
    return adjusted


def _named_as_exercise(result: NotebookResult) -> bool:
    return Path(result.path).name == f"{result.notebook}.ipynb"


# -- untrusted data ----------------------------------------------------------------------

def clean_outcome(outcome: object) -> dict | None:
    """An outcome from the sandbox in exactly one of the shapes the harness produces, or None."""
    if not isinstance(outcome, dict) or len(outcome) > 3:
        return None
    if set(outcome) == {"value"}:
        value = outcome["value"]
        return {"value": value if plain.is_plain(value) else {"__unsupported__": "malformed value"}}
    if set(outcome) == {"raised", "mro", "message"}:
        mro, raised, message = outcome["mro"], outcome["raised"], outcome["message"]
        if isinstance(raised, str) and isinstance(message, str) and isinstance(mro, list) \
                and len(mro) <= 100 and all(isinstance(name, str) for name in mro):
            return {"raised": raised[:200], "mro": [name[:200] for name in mro],
                    "message": message[:2000]}
        return None
    if set(outcome) == {"missing"} and isinstance(outcome["missing"], str):
        return {"missing": outcome["missing"][:500]}
    if set(outcome) == {"timeout"} and type(outcome["timeout"]) in (int, float):
        return {"timeout": float(outcome["timeout"])}
    for kind in ("tampered", "died"):
        if set(outcome) == {kind} and isinstance(outcome[kind], str):
            return {kind: plain_text(outcome[kind], 500)}
    return None
