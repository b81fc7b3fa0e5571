"""Scoring: from what a sandbox run reported to points, and the message for each hidden test.

`score_run` reads a run's events (untrusted: each outcome is checked by `clean_outcome`),
`judge` compares one outcome with the reference's, and `score` turns one graded item's
verdicts into points, with the rejection gate. The cases and their expected outcomes come from
`suite.py`; the records made here are `results.py`'s.
"""

from __future__ import annotations

import errno
import marshal
import math
import re
from dataclasses import dataclass

from . import escape, runner, suite
from .reference import names_grading_skips
from .results import ItemResult, NotebookResult, TestResult
from .rubric import Exercise, GradedItem
from .sandbox import plain, wire
from .sandbox.harness import run_case
from .suite import Case

MAX_CELL_PROBLEMS = 20
MAX_FLAGS = 20


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


def _kind_hint(expected: dict, actual: dict) -> str:
    """" (a tuple, where the rules ask for a list)" when a returned value is of another kind
    than the expected one (which the notebook's signature states), else ""."""
    if "value" not in expected or "value" not in actual:
        return ""
    wanted, got = plain.kind(expected["value"]), plain.kind(actual["value"])
    if wanted == got == "a list":  # [1, 0] where the rules ask for [True, False]
        wanted, got = (_element_kind(value) for value in (expected["value"], actual["value"]))
        if wanted and got and wanted != got:
            return f" (a list of {got}, where the rules ask for a list of {wanted})"
        return ""
    if not wanted or not got or wanted == got:
        return ""
    return f" ({got}, where the rules ask for {wanted})"


def _element_kind(values: list) -> str:
    """The kind every element of a list shares, in the plural ("ints"), or ""."""
    kinds = {plain.kind(value) for value in values}
    if len(kinds) != 1 or "" in kinds:
        return ""
    return {"None": "None values", "a string": "strings"}.get(
        next(iter(kinds)), next(iter(kinds)).split(" ", 1)[-1] + "s")


LONG = 250  # characters past which a value shown in a message is about to be cut short
# Characters of an exception's message shown where it lacks a word it must mention (shown with
# repr, one character may take ten: 2,000 of them took 20 KB in each such test's feedback).
SHOWN_MESSAGE = 200


def first_difference(expected: object, actual: object,
                     depth: int = 0) -> tuple[str, object, object] | None:
    """Where two plain values first differ, as (path, expected part, actual part): a path such
    as `[2]['owner']` into lists, tuples and dicts of the same shape, "" when the values differ
    as a whole (another kind, length or set of keys); None when they are the same. `actual`
    may be anything that came out of a sandbox; this never raises."""
    try:
        if plain.same(expected, actual):
            return None
        if depth > plain.MAX_DEPTH:
            return "", expected, actual
        pairs: list[tuple[str, object, object]] = []
        if isinstance(expected, list) and isinstance(actual, list) \
                and len(expected) == len(actual):
            pairs = [(f"[{index}]", e, a)
                     for index, (e, a) in enumerate(zip(expected, actual, strict=True))]
        elif isinstance(expected, dict) and isinstance(actual, dict):
            for marker in ("__tuple__", "__dict__"):
                if marker in expected and marker in actual and len(expected) == len(actual) == 1:
                    wanted, found = expected[marker], actual[marker]
                    if marker == "__tuple__" and len(wanted) == len(found):
                        pairs = [(f"[{index}]", e, a)
                                 for index, (e, a) in enumerate(zip(wanted, found, strict=True))]
                    elif marker == "__dict__":
                        mine = {plain.show(k, 80): v for k, v in found}
                        theirs = {plain.show(k, 80): v for k, v in wanted}
                        if list(mine) == list(theirs) or set(mine) == set(theirs):
                            pairs = [(f"[{key}]", value, mine[key])
                                     for key, value in theirs.items()]
        for step, wanted_part, found_part in pairs:
            below = first_difference(wanted_part, found_part, depth + 1)
            if below is not None:
                return step + below[0], below[1], below[2]
        return "", expected, actual
    except (TypeError, ValueError, KeyError, RecursionError):
        return "", expected, actual


def _where(expected: object, actual: object, reveal: bool) -> str:
    """"; it first differs at [2]['owner']: ..." for two values that differ inside, else ""."""
    found = first_difference(expected, actual)
    if not found or not found[0]:
        return ""
    path, wanted, got = found
    if not reveal and (type(wanted) is bool or type(got) is bool):
        return ""  # one of two values: where it differs would say what it should be
    if reveal:
        return (f"; the first difference is at {path}: expected {plain.show(wanted, 160)}, "
                f"got {plain.show(got, 160)}")
    return (f"; the first part that differs is at {path}, where your code gave "
            f"{plain.show(got, 160)}")


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
            wanted_kind, got_kind = plain.kind(value), plain.kind(found[key])
            hint = f" ({got_kind}, where the rules ask for {wanted_kind})" \
                if wanted_kind and got_kind and wanted_kind != got_kind else ""
            inside = first_difference(value, found[key])
            if inside and inside[0] and not hint:
                path, value, got = inside
                parts.append(f"{key} at {path}: expected {plain.show(value, 160)}, "
                             f"got {plain.show(got, 160)}")
                continue
            parts.append(f"{key}: expected {plain.show(value, 160)}, "
                         f"got {plain.show(found[key], 160)}{hint}")
    parts += [f"unexpected {key}" for key in found if key not in wanted]
    return "; ".join(parts[:4]) + (f"; and {len(parts) - 4} more" if len(parts) > 4 else "")


def judge(case: Case, expected: dict, actual: dict | None,
          reveal: bool = True) -> tuple[bool, str]:
    """Compare one outcome with the reference's; return (passed, message for the student).

    With `reveal` False the message shows the call and what the student's code did, never
    the expected outcome (see `Case.public`)."""
    actual = actual if isinstance(actual, dict) else {}
    call = case.call_text  # written out only for a message: most cases pass
    if "tampered" in actual:
        return False, f"{call()}: {describe(actual)}"
    if not reveal:
        passed, _ = judge(case, expected, actual)
        mro = actual.get("mro")
        if not passed and "raised" in expected and isinstance(mro, list) \
                and expected["raised"] in mro:
            # The right exception, with a message the rules word differently: what it should
            # mention is the rule's own wording (or part of the call), not a hidden answer.
            return judge(case, expected, actual)
        if passed or "raised" in expected or "value" in expected:
            where = _where(expected["value"], actual["value"], reveal=False) \
                if "value" in expected and "value" in actual else ""
            return passed, "" if passed else (
                f"{call()}: your code gave {describe(actual)}{_kind_hint(expected, actual)}, "
                f"which is not what the rules ask for{where} (this hidden test does not show "
                "its expected answer)")
    if "raised" in expected:
        mro = actual.get("mro")
        if not (isinstance(mro, list) and expected["raised"] in mro):
            return False, f"{call()} should raise {expected['raised']}, got {describe(actual)}"
        message = str(actual.get("message", "")).lower()
        missing = [needle for needle in case.message_contains if needle.lower() not in message]
        if missing and not (case.any_mention and len(missing) < len(case.message_contains)):
            shown = str(actual.get("message", ""))
            shown = repr(shown) if len(shown) <= SHOWN_MESSAGE else \
                f"{shown[:SHOWN_MESSAGE]!r}... ({len(shown):,} characters)"
            wanted = " or ".join(map(repr, missing)) if case.any_mention else repr(missing[0])
            return False, (f"{call()} raised {expected['raised']} as it should, but its "
                           f"message should mention {wanted}; it was {shown}")
        return True, ""
    if "value" in expected:
        if "value" in actual and plain.same(expected["value"], actual["value"]):
            return True, ""
        differences = _dict_differences(expected["value"], actual.get("value"))
        if differences:
            return False, f"{call()}: {differences}"
        where = _where(expected["value"], actual["value"], reveal=True) \
            if "value" in actual else ""
        wanted, got = describe(expected), describe(actual)
        if where and max(len(wanted), len(got)) > LONG:  # both cut short: only where they differ
            return False, f"{call()}: {where.removeprefix('; ')}"
        return False, f"{call()}: expected {wanted}, got {got}{_kind_hint(expected, actual)}{where}"
    raise RuntimeError(f"the reference solution failed on {call()}: {describe(expected)}")


def score(exercise: Exercise, item: GradedItem, outcomes: dict[str, dict],
          show_expected: bool = False, equal: set[str] | frozenset[str] = frozenset(),
          ) -> list[Verdict]:
    """Verdicts for one graded item from the outcomes a run produced (keyed by case id).
    Failure messages show expected outcomes for public cases only, unless `show_expected`
    (an instructor's choice, after the deadline). `equal` names cases whose outcome is already
    known to be the reference's value (`score_run` checks that as it reads them)."""
    cases = suite.cases_for(item)
    expected = suite.expected_outcomes(item.grade_id)
    total_weight = sum(case.weight for case in cases)
    ids = [suite.case_id(item, index) for index in range(len(cases))]
    received = [outcomes.get(ident) for ident in ids]
    judged = [(True, "") if ids[index] in equal else
              judge(case, expected[index], received[index], reveal=show_expected or case.public)
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
    suite.load_all()  # the probes run here, in this process
    outcomes = {job["id"]: run_case(namespace, job) for job in suite.jobs(item)}
    return score(exercise, item, outcomes)


def grade_in_process(exercise: Exercise, namespace: dict) -> dict[str, list[Verdict]]:
    """`grade_item_in_process` for every graded item of `exercise`."""
    return {item.grade_id: grade_item_in_process(exercise, item, namespace)
            for item in exercise.items}


def score_run(exercise: Exercise, run: runner.RunResult, limits: runner.Limits,
              shown: str, show_expected: bool = False,
              labels: set[str] | frozenset[str] = frozenset()) -> NotebookResult:
    """Verdicts for every case of `exercise` from what one sandbox run reported.

    A cell is named only by a label the grader itself gave it (`labels`, from the job), never
    by text from the sandbox. Outcomes for cases the job did not ask for, a second outcome for
    one case (unless the worker's relay marks it tampered) and events after "done" are ignored
    and flagged as tampering, as are the flags the relay reports."""
    wanted = {case["id"] for case in suite.exercise_cases(exercise)}
    reference = _reference_values(exercise)
    equal: set[str] = set()  # cases whose outcome is the reference's value, as read
    outcomes: dict[str, dict] = {}
    problems: list[str] = []
    flags: list[str] = []
    cell_problems = 0
    undefined: set[str | None] = set()  # names a NameError of the run said were not defined
    forged = duplicated = after_done = 0
    done = stopped = timed_out = False
    for event in run.events:
        kind, ident = event.get("event"), event.get("id")
        if done:
            after_done += 1
        elif kind == "done":
            done = True
        elif kind == "case":
            raw = event.get("outcome")
            undefined.add(_not_defined(raw))
            matched = isinstance(ident, str) and _is_reference_value(reference.get(ident), raw)
            # An outcome that is the reference's value has its grammar by construction: only
            # the others are checked, and judged, in full.
            outcome = raw if matched else clean_outcome(raw)
            if not isinstance(ident, str) or ident not in wanted or outcome is None:
                forged += 1
            elif ident not in outcomes:
                outcomes[ident] = outcome
                timed_out = timed_out or "timeout" in outcome
                if matched:
                    equal.add(ident)
            elif "tampered" in outcome:  # the worker's relay says the case was tampered with
                outcomes[ident] = outcome
                equal.discard(ident)
            else:
                duplicated += 1
        elif kind == "cell":
            cell_problems += 1
            error = event.get("error")
            undefined.add(_not_defined(error))
            timed_out = timed_out or isinstance(error, dict) and "timeout" in error
            if cell_problems <= MAX_CELL_PROBLEMS:
                problems.append(_cell_problem(event, labels))
        elif kind == "flag" and isinstance(event.get("text"), str) and len(flags) < MAX_FLAGS:
            text = plain_text(event["text"], 200)
            if text not in flags:
                flags.append(text)
        elif kind == "stopped":
            stopped = True
        elif kind != "fork_failed":  # that one the grader reads from the run (grading.py)
            forged += 1
    flags += [f"the results channel carried {count} {what}" for count, what in (
        (forged, "outcomes or events the grader did not ask for or could not read"),
        (duplicated, "second outcomes for tests that already had one"),
        (after_done, "events after the end of the run")) if count]
    if cell_problems > MAX_CELL_PROBLEMS:
        problems.append(f"... and {cell_problems - MAX_CELL_PROBLEMS} more cells failed")
    undefined.discard(None)
    # Only a run that met a NameError needs the names, which parsing the instructor's whole
    # notebook works out (once per exercise, yet most of the scoring of a batch's first runs).
    skipped = sorted(names_grading_skips(exercise).intersection(undefined)) if undefined else []
    if skipped:
        problems.append(skipped_names_problem(skipped))
    died = sorted({outcome["died"] for outcome in outcomes.values() if "died" in outcome})
    if died:
        count = sum(1 for outcome in outcomes.values() if "died" in outcome)
        problems.append(f"in {count} hidden test{'s' if count > 1 else ''} the code under test "
                        f"ended its process ({died[0].rsplit('(', 1)[-1].rstrip(')')}"
                        f"{' and others' if len(died) > 1 else ''}); those tests count as "
                        "failed")
    missing_reason = _missing_reason(run, limits, stopped)
    timed_out = timed_out or run.timed_out or stopped
    if missing_reason and (len(outcomes) < len(wanted) or run.held_too_much):
        problems.append(missing_reason[0])
    if run.held_too_much:
        flags.append(f"stopped: the notebook {run.held_too_much}")
    if run.dropped_events:
        problems.append(f"{run.dropped_events} results sent back by the grading process could "
                        "not be read and were ignored")
    for name, total in (("printed", run.stdout_bytes), ("wrote to stderr", run.stderr_bytes)):
        if total > runner.OUTPUT_CAP:
            problems.append(f"the notebook {name} {total} bytes; only the first "
                            f"{runner.OUTPUT_CAP // 1024} KiB were kept")

    items = []
    for item in exercise.items:
        verdicts = score(exercise, item, outcomes, show_expected, equal)
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
        items.append(ItemResult(item.grade_id, item.title, item_points(verdicts),
                                item.points, tests))
    return NotebookResult(
        path=shown, notebook=exercise.notebook, assignment=exercise.assignment,
        score=round(sum(item.score for item in items), 2), max_score=exercise.max_score,
        items=items, problems=problems, execution_time=round(run.elapsed, 3),
        stdout=run.stdout, stderr=run.stderr, flags=flags, timed_out=timed_out)


# The reference's values of an exercise's cases with their exact bytes (`_exact`), by case id:
# worked out once per set of expected outcomes (kept here with them, so an id is never
# another's).
_REFERENCE: dict[str, tuple[tuple, dict[str, tuple[object, bytes]]]] = {}


def _reference_values(exercise: Exercise) -> dict[str, tuple[object, bytes]]:
    """(value, its exact bytes) of every case of `exercise` whose reference outcome is a value
    that has a JSON text, by case id."""
    lists = tuple(suite.expected_outcomes(item.grade_id) for item in exercise.items)
    known = _REFERENCE.get(exercise.notebook)
    if known is None or len(known[0]) != len(lists) or \
            any(mine is not theirs for mine, theirs in zip(known[0], lists, strict=True)):
        table = {}
        for item, outcomes in zip(exercise.items, lists, strict=True):
            for index, outcome in enumerate(outcomes):
                exact = _exact(outcome["value"]) if "value" in outcome \
                    and _text(outcome["value"]) is not None else None
                if exact is not None:
                    table[suite.case_id(item, index)] = (outcome["value"], exact)
        known = _REFERENCE[exercise.notebook] = (lists, table)
    return known[1]


def _text(value: object) -> str | None:
    """The JSON text `plain.identical` compares for `value`, or None when it has none (NaN,
    the infinities, a structure too deep)."""
    try:
        return wire.dumps(value, allow_nan=False)
    except (RecursionError, TypeError, ValueError):
        return None


def _exact(value: object) -> bytes | None:
    """Bytes that tell apart what JSON's text tells apart among equal plain values: marshal's
    format 2, which writes each int, float (its 8 bytes: -0.0 is not 0.0), bool, str, list and
    dict by its type and in its order, with no references between objects (format 3 would
    write a string met twice as a reference, as it happens to be shared). Several times faster
    than writing the JSON text. None for anything else (marshal refuses what JSON lacks)."""
    try:
        return marshal.dumps(value, 2)  # type: ignore[arg-type]  # it refuses the rest
    except (RecursionError, TypeError, ValueError):
        return None


def _is_reference_value(reference: tuple[object, bytes] | None, outcome: object) -> bool:
    """Whether an outcome from the sandbox is exactly {"value": the reference's value}, with
    the same JSON text (so 1.0 is not 1, nor true 1), as `plain.identical` says: equal, with
    the same exact bytes (`_exact`; the outcome was read from JSON, so it holds JSON's types
    only, and the reference's value has a JSON text). Never raises."""
    if reference is None or type(outcome) is not dict or len(outcome) != 1 \
            or "value" not in outcome:
        return False
    try:
        if not reference[0] == outcome["value"]:
            return False
    except (RecursionError, TypeError, ValueError):
        return False
    return _exact(outcome["value"]) == reference[1]


def plain_text(text: str, limit: int) -> str:
    """`text` with control characters replaced and cut to `limit` characters."""
    cleaned = "".join(c if c.isprintable() else "?" for c in text[:limit])
    return cleaned.encode("utf-8", "replace").decode("utf-8")


def _missing_reason(run: runner.RunResult, limits: runner.Limits,
                    stopped: bool = False) -> tuple[str, str] | None:
    """(problem for the notebook, detail for each test) when the run ended before the end."""
    if run.held_too_much:
        return (f"the notebook {run.held_too_much}, and was stopped; the tests that had not "
                "run count as failed",
                f"no result: the notebook {run.held_too_much}, and was stopped before this "
                "test finished")
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
    if run.cut:
        most = f"{runner.RESULTS_CAP // 2**20} MiB, or {runner.VALUES_CAP:,} values"
        return (f"the hidden tests sent back more results than the grader reads ({most}); "
                "the tests whose results came after that count as failed",
                f"no result: the tests before this one sent back more results than the grader "
                f"reads ({most})")
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


def could_not_start(events: list[dict]) -> bool:
    """Whether a cell or a hidden test of the notebook failed because a thread or process could
    not be started (Python's RuntimeError "can't start new thread", or a fork's EAGAIN), as the
    notebook's own results say: notebook code can say so falsely."""
    for event in events:
        kind = event.get("event")
        error = event.get("error") if kind == "cell" else \
            event.get("outcome") if kind == "case" else None
        if not isinstance(error, dict) or set(error) != {"raised", "mro", "message"}:
            continue
        mro, message = error["mro"], error["message"]
        if isinstance(mro, list) and isinstance(message, str) and (
                "RuntimeError" in mro and message.startswith("can't start new thread")
                or "BlockingIOError" in mro and message.startswith(f"[Errno {errno.EAGAIN}]")):
            return True
    return False


def _cell_problem(event: dict, labels: set[str] | frozenset[str]) -> str:
    label = event.get("label")
    label = label if isinstance(label, str) and label in labels else "a cell"
    error = clean_outcome(event.get("error"))
    if error is None:
        return f"{label} failed"
    if "waited" in error:
        return (f"{label} was stopped by its wall clock after {error['waited']:.0f} s, before it "
                f"used its {error['timeout']:g} s of CPU time: it waited (a sleep, or a lock, "
                "input or thread that never came) or got too little of a core")
    if "timeout" in error:
        return f"{label} ran longer than {error['timeout']:g} s of CPU time and was stopped"
    return f"{label} raised {describe(error)}"


# Python's own words for a NameError (without the "Did you mean" a traceback adds)
_NOT_DEFINED = re.compile(r"name '([A-Za-z_][A-Za-z0-9_]{0,99})' is not defined")


def _not_defined(error: object) -> str | None:
    """The name a NameError outcome or cell error says is not defined, else None. Only the
    course's own names are ever shown (`names_grading_skips`), never this text."""
    if not isinstance(error, dict):
        return None
    mro, message = error.get("mro"), error.get("message")
    if not (isinstance(mro, list) and "NameError" in mro and isinstance(message, str)):
        return None
    found = _NOT_DEFINED.match(message)
    return found.group(1) if found else None


def skipped_names_problem(names: list[str]) -> str:
    """Why an answer that ran in the notebook fails when graded: it uses names that only the
    worked examples, figures or self-checks define, which a graded run does not run."""
    shown = ", ".join(repr(name) for name in names[:5]) + (" and others" if len(names) > 5 else "")
    which = "them" if len(names) > 1 else "it"
    return (f"your code uses {shown}, which only cells that grading does not run (worked "
            f"examples, figures, self-checks) define: define or import {which} in your answer "
            "cells")


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
            return {"raised": escape.terminal(raised[:200]), "mro": [name[:200] for name in mro],
                    "message": message[:2000]}
        return None
    if set(outcome) == {"missing"} and isinstance(outcome["missing"], str):
        return {"missing": escape.terminal(outcome["missing"][:500])}
    if set(outcome) == {"timeout"} and type(outcome["timeout"]) in (int, float):
        return {"timeout": float(outcome["timeout"])}
    if set(outcome) == {"timeout", "waited"} and all(
            type(outcome[key]) in (int, float) and math.isfinite(outcome[key])
            for key in outcome):  # a cell stopped by its wall clock (harness.run_cell)
        return {"timeout": float(outcome["timeout"]), "waited": float(outcome["waited"])}
    for kind in ("tampered", "died"):
        if set(outcome) == {kind} and isinstance(outcome[kind], str):
            return {kind: plain_text(outcome[kind], 500)}
    return None
