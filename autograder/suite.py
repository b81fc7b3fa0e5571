"""Hidden test suites: weighted cases, their expected outcomes, and the verdict on each.

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

load_all()  # this process checks and runs every suite's probes

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


@dataclass(frozen=True)
class Verdict:
    case: Case
    passed: bool
    message: str  # empty when passed
    points: float
    max_points: float
    gated: bool = False  # a rejection that was right but earned nothing (see REJECTION_GATE)


# A rejection case (the reference raises) earns its points only when the submission also
# answers at least this share of the item's valid-case weight (returns a value instead of
# raising, timing out or missing) and gets at least one valid case right. An answer that only
# raises, or that rejects everything it does not recognise, earns nothing for rejecting; one
# honest bug that changes valid answers (a missing jitter, a swapped field) costs no rejection
# points, because its function still tells valid input from bad input.
REJECTION_GATE = 0.5


def cases_for(item: GradedItem) -> list[Case]:
    module = importlib.import_module(f"autograder.suites.{item.suite}")
    exercise, _ = item_for(item.grade_id)
    shown = _released_text(exercise.path)
    return [replace(case, public=True) if not case.public and _spelled_out(case, shown) else case
            for case in module.CASES]


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
        parts = _all_written([_as_source(arg, quote) for arg in case.args])
        if parts is not None and " ".join(", ".join(parts).split()) in shown:
            return True
    return False


def _all_written(parts: list[str | None]) -> list[str] | None:
    """`parts` when every one of them could be written out, else None."""
    written = [part for part in parts if part is not None]
    return written if len(written) == len(parts) else None


def _as_source(value: object, quote: str) -> str | None:
    """`value` as it would be written in a notebook's code, or None for anything complex."""
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
        while len(parts) > 3 and parts[-1] == 0:
            parts.pop()
        return f"datetime({', '.join(map(str, parts))})"
    if isinstance(value, (date, time, timedelta)):
        return None
    if isinstance(value, (list, tuple)) and len(value) <= 20:
        inner = _all_written([_as_source(v, quote) for v in value])
        if inner is None:
            return None
        body = ", ".join(inner)
        if isinstance(value, list):
            return f"[{body}]"
        return f"({body},)" if len(inner) == 1 else f"({body})"
    if isinstance(value, dict) and len(value) <= 20:
        pairs = [(_as_source(k, quote), _as_source(v, quote)) for k, v in value.items()]
        if any(None in pair for pair in pairs):
            return None
        return "{" + ", ".join(f"{k}: {v}" for k, v in pairs) + "}"
    return None


def case_id(item: GradedItem, index: int) -> str:
    return f"{item.grade_id}:{index}"


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
    namespace = reference.namespace(exercise)
    outcomes = []
    for job in jobs(item):
        job["timeout"] = max(60.0, job["timeout"] * 20)  # the reference is trusted, not rushed
        outcomes.append(run_case(namespace, job))
    return tuple(outcomes)


def describe(outcome: dict) -> str:
    if "value" in outcome:
        return plain.show(outcome["value"])
    if "timeout" in outcome:
        return f"no answer within {outcome['timeout']:g} s (a loop that never ends?)"
    if "missing" in outcome:
        return str(outcome["missing"])
    if "tampered" in outcome:
        return f"no trustworthy result ({outcome['tampered']})"
    if "died" in outcome:
        return f"no result: {outcome['died']}"
    if "raised" in outcome:
        message = str(outcome.get("message", ""))
        text = f"{outcome['raised']}({message!r})" if message else f"{outcome['raised']}"
        return text if len(text) < 300 else text[:295] + "...)"
    return "no result (the notebook's code ended the grading process)"


def _dict_differences(expected: object, actual: object) -> str:
    """For two observation dicts, name only the entries that differ ("" when not dicts)."""
    try:
        if not (isinstance(expected, dict) and "__dict__" in expected
                and isinstance(actual, dict) and "__dict__" in actual):
            return ""
        wanted = {plain.show(k, 80): v for k, v in expected["__dict__"]}
        found = {plain.show(k, 80): v for k, v in actual["__dict__"]}
    except (TypeError, ValueError, KeyError):
        return ""
    parts = []
    for key, value in wanted.items():
        if key not in found:
            parts.append(f"{key} is missing (expected {plain.show(value, 160)})")
        elif not plain.same(value, found[key]):
            parts.append(f"{key}: expected {plain.show(value, 160)}, "
                         f"got {plain.show(found[key], 160)}")
    parts += [f"unexpected {key}" for key in found if key not in wanted]
    return "; ".join(parts[:4]) + (f"; and {len(parts) - 4} more" if len(parts) > 4 else "")


def judge(case: Case, expected: dict, actual: dict | None,
          reveal: bool = True) -> tuple[bool, str]:
    """Compare one outcome with the reference's; return (passed, message for the student).

    With `reveal` False the message shows the call and what the student's code did, never
    the expected outcome (see `Case.public`)."""
    actual = actual if isinstance(actual, dict) else {}
    call_text = case.call_text()
    if "tampered" in actual:
        return False, f"{call_text}: {describe(actual)}"
    if not reveal:
        passed, _ = judge(case, expected, actual)
        if passed or "raised" in expected or "value" in expected:
            return passed, "" if passed else (
                f"{call_text}: your code gave {describe(actual)}, which is not what the rules "
                "ask for (this hidden test does not show its expected answer)")
    if "raised" in expected:
        mro = actual.get("mro")
        if not (isinstance(mro, list) and expected["raised"] in mro):
            return False, f"{call_text} should raise {expected['raised']}, got {describe(actual)}"
        message = str(actual.get("message", "")).lower()
        for needle in case.message_contains:
            if needle.lower() not in message:
                return False, (f"{call_text} raised {expected['raised']} as it should, but its "
                               f"message should mention {needle!r}; "
                               f"it was {actual.get('message')!r}")
        return True, ""
    if "value" in expected:
        if "value" in actual and plain.same(expected["value"], actual["value"]):
            return True, ""
        differences = _dict_differences(expected["value"], actual.get("value"))
        if differences:
            return False, f"{call_text}: {differences}"
        return False, f"{call_text}: expected {describe(expected)}, got {describe(actual)}"
    raise RuntimeError(f"the reference solution failed on {call_text}: {describe(expected)}")


def score(exercise: Exercise, item: GradedItem, outcomes: dict[str, dict],
          show_expected: bool = False) -> list[Verdict]:
    """Verdicts for one graded item from the outcomes a run produced (keyed by case id).
    Failure messages show expected outcomes for public cases only, unless `show_expected`
    (an instructor's choice, after the deadline)."""
    cases = cases_for(item)
    expected = expected_outcomes(item.grade_id)
    total_weight = sum(case.weight for case in cases)
    received = [outcomes.get(case_id(item, index)) for index in range(len(cases))]
    judged = [judge(case, expected[index], received[index], reveal=show_expected or case.public)
              for index, case in enumerate(cases)]
    rejection = ["raised" in outcome or case.rejection
                 for case, outcome in zip(cases, expected, strict=True)]
    valid = [index for index, is_rejection in enumerate(rejection) if not is_rejection]
    valid_weight = sum(cases[index].weight for index in valid)
    answered = sum(cases[index].weight for index in valid
                   if isinstance(answer := received[index], dict) and "value" in answer)
    any_right = any(judged[index][0] for index in valid)
    gate_open = not valid or (answered >= REJECTION_GATE * valid_weight and any_right)
    verdicts = []
    for case, is_rejection, (passed, message) in zip(cases, rejection, judged, strict=True):
        max_points = item.points * case.weight / total_weight
        gated = passed and is_rejection and not gate_open
        if gated:
            passed, message = False, (
                f"{case.call_text()} rejected bad input as it should, but a rejection earns its "
                f"points only when the function also answers at least {REJECTION_GATE:.0%} of the "
                f"valid cases (by weight) and gets one of them right; it answered "
                f"{answered / valid_weight:.0%} and got "
                f"{'some' if any_right else 'none'} right")
        verdicts.append(Verdict(case, passed, message, max_points if passed else 0.0, max_points,
                                gated))
    return verdicts


def item_points(verdicts: list[Verdict]) -> float:
    """The points of one graded item, rounded the same way on every grading path."""
    return round(sum(v.points for v in verdicts), 2)


def grade_item_in_process(exercise: Exercise, item: GradedItem,
                          namespace: dict) -> list[Verdict]:
    """Verdicts for one graded item, running its cases on an already-built namespace.

    For trusted code only (suite development, the nbgrader grade cells): nothing here isolates
    the namespace's code from the grader.
    """
    outcomes = {job["id"]: run_case(namespace, job) for job in jobs(item)}
    return score(exercise, item, outcomes)


def grade_in_process(exercise: Exercise, namespace: dict) -> dict[str, list[Verdict]]:
    """`grade_item_in_process` for every graded item of `exercise`."""
    return {item.grade_id: grade_item_in_process(exercise, item, namespace)
            for item in exercise.items}
