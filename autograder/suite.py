"""Hidden test suites: weighted cases and their expected outcomes (`scoring.py` judges them).

A suite module in `autograder/suites/` defines `CASES`, a list of `Case`. Expected outcomes
are never written by hand: they come from running each case's probe on the reference
solution in `solutions/` (see `reference.py`), in the grader's own process.
"""

from __future__ import annotations

import importlib
import json
from dataclasses import dataclass, field, replace
from datetime import date, datetime, time, timedelta
from functools import cache
from typing import Any

from . import reference
from .rubric import Exercise, GradedItem, item_for
from .sandbox import plain, protocol
from .sandbox.harness import run_case
from .sandbox.probes import load_all

DEFAULT_TIMEOUT = 5.0
# What the graded functions raise for bad input, as every notebook's exercise section says; the
# reference raising anything else on a case is a bug in the suite or the reference, refused
# when the grader prepares.
ANSWER_ERRORS = ("ValueError",)


@dataclass(frozen=True)
class Case:
    """One hidden test: what to run, how much it weighs, and how to describe it."""

    name: str  # what it checks, in the student's words
    probe: str  # "call" or a probe registered in autograder/sandbox/probes/
    target: str | None = None  # the function a "call" probe calls
    args: tuple = ()
    kwargs: dict = field(default_factory=dict)
    weight: float = 1.0
    # When the reference raises, the student's error message must contain each of these
    # (compared without regard to case).
    message_contains: tuple[str, ...] = ()
    # ... or, with this set, at least one of them (where the rules accept either of two errors).
    any_mention: bool = False
    timeout: float = DEFAULT_TIMEOUT
    shows: str | None = None  # how to show the call in a failure message; default from args
    # The rule this case checks, as written (word for word) in the exercise section of the
    # student copy in notebooks/; tests/test_traceability.py holds every case to it.
    rule: str = ""
    # A case about bad input whose probe observes the rejection as a value (the reference's
    # raising is caught inside it); cases where the reference raises are rejections anyway.
    rejection: bool = False
    # A public case is one of the notebook's own worked examples or self-checks: its failure
    # message may show the expected answer, which the student copy shows anyway. `cases_for`
    # marks every "call" case whose arguments the student copy spells out; a suite may mark
    # others. Feedback on every other case shows the student's own answer, never the expected.
    public: bool = False

    def call_text(self) -> str:
        if self.shows is not None:
            return self.shows
        parts = [plain.show(plain.to_plain(a), 120) for a in self.args]
        parts += [f"{k}={plain.show(plain.to_plain(v), 120)}" for k, v in self.kwargs.items()]
        return f"{self.target or self.probe}({', '.join(parts)})"

    def job(self, case_id: str) -> protocol.Case:
        """The case as plain data for a sandbox worker."""
        return {
            "id": case_id,
            "probe": self.probe,
            "target": self.target,
            "args": [plain.to_plain(a) for a in self.args],
            "kwargs": {k: plain.to_plain(v) for k, v in self.kwargs.items()},
            "timeout": self.timeout,
        }


def call(target: str, *args: Any, weight: float = 1.0, name: str, **options: Any) -> Case:
    """A case that calls `target(*args)` and compares the result with the reference's."""
    kwargs = options.pop("kwargs", {})
    return Case(name=name, probe="call", target=target, args=args, kwargs=kwargs,
                weight=weight, **options)




@cache
def cases_for(item: GradedItem) -> tuple[Case, ...]:
    """The cases of one graded item, in suite order, public where the student copy spells
    them out (worked out once per item: every notebook's scoring asks)."""
    module = importlib.import_module(f"autograder.suites.{item.suite}")
    exercise, _ = item_for(item.grade_id)
    shown = _released_text(exercise.path)
    return tuple(replace(case, public=True) if not case.public and _spelled_out(case, shown)
                 else case for case in module.CASES)


RELEASE = reference.REPOSITORY / "notebooks"


@cache
def _released_text(path: str) -> str:
    """Every cell of the student copy of a notebook, with white space squeezed ("" if none)."""
    try:
        cells = json.loads((RELEASE / path).read_text(encoding="utf-8"))["cells"]
        text = "\n".join("".join(cell["source"]) if isinstance(cell["source"], list)
                         else cell["source"] for cell in cells)
    except (OSError, ValueError, KeyError, TypeError):
        return ""
    return " ".join(text.split())


def _spelled_out(case: Case, shown: str) -> bool:
    """Whether the student copy writes out this call's arguments (as a self-check does)."""
    if case.probe != "call" or case.kwargs or not case.args or not shown:
        return False
    for quote in ("'", '"'):
        for clock in (3, 5):  # datetime(2025, 7, 4, 10) or datetime(2025, 7, 4, 10, 0)
            parts = _all_written([_as_source(arg, quote, clock) for arg in case.args])
            if parts is not None and " ".join(", ".join(parts).split()) in shown:
                return True
    return False


def _all_written(parts: list[str | None]) -> list[str] | None:
    """`parts` when every one of them could be written out, else None."""
    written = [part for part in parts if part is not None]
    return written if len(written) == len(parts) else None


def _as_source(value: object, quote: str, clock: int = 3) -> str | None:
    """`value` as it would be written in a notebook's code, or None for anything complex: a
    datetime with at least `clock` of its numbers (3: the date; 5: down to the minute), a set
    in ascending order."""
    if isinstance(value, str):
        text = repr(value)
        if quote == '"' and "'" not in value and '"' not in value:
            text = '"' + value + '"'
        return text
    if isinstance(value, bool) or value is None or isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, datetime) and value.tzinfo is None:
        parts = [value.year, value.month, value.day, value.hour, value.minute, value.second,
                 value.microsecond]
        while len(parts) > clock and parts[-1] == 0:
            parts.pop()
        return f"datetime({', '.join(map(str, parts))})"
    if isinstance(value, (date, time, timedelta)):
        return None
    if isinstance(value, (set, frozenset)) and 0 < len(value) <= 20:
        try:
            ordered = sorted(value)
        except TypeError:
            return None
        inner = _all_written([_as_source(v, quote, clock) for v in ordered])
        return None if inner is None else "{" + ", ".join(inner) + "}"
    if isinstance(value, (list, tuple)) and len(value) <= 20:
        inner = _all_written([_as_source(v, quote, clock) for v in value])
        if inner is None:
            return None
        body = ", ".join(inner)
        if isinstance(value, list):
            return f"[{body}]"
        return f"({body},)" if len(inner) == 1 else f"({body})"
    if isinstance(value, dict) and len(value) <= 20:
        pairs = [(_as_source(k, quote, clock), _as_source(v, quote, clock))
                 for k, v in value.items()]
        if any(None in pair for pair in pairs):
            return None
        return "{" + ", ".join(f"{k}: {v}" for k, v in pairs) + "}"
    return None


def case_id(item: GradedItem, index: int) -> str:
    return f"{item.grade_id}:{index}"


@cache
def exercise_cases(exercise: Exercise) -> tuple[protocol.Case, ...]:
    """Every case of every graded item of `exercise`, as a worker's job lists them."""
    return tuple(job for item in exercise.items for job in jobs(item))


def jobs(item: GradedItem) -> list[protocol.Case]:
    """Every case of one graded item as plain data for a worker, in suite order."""
    return [case.job(case_id(item, index)) for index, case in enumerate(cases_for(item))]


# Expected outcomes read back from a store (autograder/expected.py) instead of computed.
_STORED: dict[str, tuple[dict, ...]] = {}


def use_stored(grade_id: str, outcomes: tuple[dict, ...]) -> None:
    """Use `outcomes`, computed by an earlier run with the same fingerprint, for `grade_id`."""
    _STORED[grade_id] = outcomes
    expected_outcomes.cache_clear()


@cache
def expected_outcomes(grade_id: str) -> tuple[dict, ...]:
    """What the reference solution does on every case of one graded item (computed once, or
    read from the store)."""
    if grade_id in _STORED:
        return _STORED[grade_id]
    exercise, item = item_for(grade_id)
    load_all()  # imported only where the reference runs: grading from stored values needs none
    namespace = reference.namespace(exercise)
    outcomes = []
    for job in jobs(item):
        job["timeout"] = max(60.0, job["timeout"] * 20)  # the reference is trusted, not rushed
        outcomes.append(run_case(namespace, job))
    return tuple(outcomes)
