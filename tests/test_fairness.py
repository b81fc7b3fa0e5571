"""Fair scoring of rejections (scoring.REJECTION_GATE): an answer that only raises earns nothing
on any notebook, and one honest bug loses points on the item it names, and only the cases whose
answer it changes; and every hidden case is lost by some wrong solution (NOT_YET_LOST would
name, with why, any that none loses). Each wrong-solution corpus entry is graded once here, in
this process (tests/test_agreement.py grades the corpus once more, through the sandboxed
command line).

A rejection case (the reference raises) that a submission gets right still earns nothing when
too few of the item's valid cases are right: such a verdict is `gated`. A wrong-solution corpus
entry holds one bug in an otherwise honest answer, so none of its verdicts may be gated: every
case it fails, it fails because its own outcome differs from the reference's.
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

import fixtures
import pytest

from autograder.rubric import EXERCISES, Exercise
from autograder.scoring import REJECTION_GATE, Verdict, item_points, score

WRONG = Path(__file__).parent / "corpus" / "wrong"
ENTRIES = fixtures.read_corpus(WRONG)


class _RaiseOnly(ast.NodeTransformer):
    """Every function (and method) body becomes `raise ValueError(...)`."""

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.FunctionDef:
        node.body = [ast.parse("raise ValueError('bad input')").body[0]]
        return node

    visit_AsyncFunctionDef = visit_FunctionDef


def raise_only_answers(exercise: Exercise) -> dict[str, str]:
    answers = {}
    for grade_id, source in fixtures.reference_answers(exercise).items():
        tree = _RaiseOnly().visit(ast.parse(source))
        answers[grade_id] = ast.unparse(ast.fix_missing_locations(tree))
    return answers


@pytest.mark.parametrize("exercise", EXERCISES, ids=lambda e: e.notebook)
def test_an_answer_that_only_raises_scores_nothing(exercise):
    answers = raise_only_answers(exercise)
    assert all("raise ValueError('bad input')" in source for source in answers.values())
    notebook = fixtures.build_submission(exercise, answers)
    points = fixtures.score_in_process(notebook, exercise)
    assert points == {item.grade_id: 0 for item in exercise.items}


@cache
def verdicts_of(path: Path) -> dict[str, list[Verdict]]:
    """A corpus entry's verdicts per graded item, graded in this process once per run for
    every test here that asks."""
    entry = fixtures.read_corpus_entry(path)
    return fixtures.verdicts_in_process(fixtures.corpus_submission(entry), entry.exercise)


def label(entry: fixtures.CorpusEntry) -> str:
    return f"{entry.path.parent.name}/{entry.name}"


# A wrong solution's worker thread may die of the very bug a case catches (for example an
# IntegrityError in check-then-insert, notebook 07); that is the student's error, not the test's.
@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")
@pytest.mark.parametrize("entry", ENTRIES, ids=label)
def test_each_wrong_solution_loses_points_on_its_item(entry):
    """Points below the item's full marks, which the reference earns (tests/test_exercises.py),
    on every item its `# loses:` line names."""
    full = {item.grade_id: item.points for item in entry.exercise.items}
    lost_on = [grade_id.strip() for grade_id in entry.header["loses"].split(",")]
    assert set(lost_on) <= set(full), f"{entry.name}: `# loses: {lost_on}` names no item"
    scores = {grade_id: item_points(found) for grade_id, found in verdicts_of(entry.path).items()}
    for grade_id in lost_on:
        assert scores[grade_id] < full[grade_id], (
            f"{entry.name} ({entry.header.get('bug')}) kept every point of {grade_id}: {scores}")


@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")
@pytest.mark.parametrize("entry", ENTRIES, ids=label)
def test_one_bug_loses_only_the_cases_its_bug_changes(entry):
    verdicts = verdicts_of(entry.path)
    lost = [v for found in verdicts.values() for v in found if not v.passed]
    assert lost, f"{entry.name}: the bug costs nothing ({entry.header.get('bug')})"
    gated = [v.case.name for v in lost if v.gated]
    assert not gated, (f"{entry.name} loses rejection cases it gets right, only because of the "
                       f"gate: {gated}")


# Capstone bugs that each break a stated rule of their own, and the hidden cases each loses:
# exactly the cases that observe what the bug changes. The first case of config_hash hashes a
# configuration whose keys are already sorted, so forgetting sort_keys loses the cases of the
# sorted-keys rule and not the recipe's.
RECIPE = "run_key follows the recipe (canonical JSON of the five parts, sha256 hex)"
NARROW_BUGS = {
    "times_stored_in_the_callers_zone": {
        "times are stored in UTC even when `now` is given in Karachi time"},
    "failed_attempt_marked_expired": {
        "a FAILED run stores its error category and is retried as a new attempt",
        "a FAILED run is retried on the next trigger with a fresh fetch"},
    "runtime_as_long_as_freshness_accepted": {"a run as long as the freshness need is rejected"},
    "minute_60_accepted": {"minute 60 is rejected"},
    "window_zone_left_to_utc_text": {"a window whose start has no time zone is rejected"},
    "zone_never_checked": {"an unknown time zone is rejected and named"},
    "succeeded_step_never_reported": {"the steps are reported in order, ending with 'succeeded'"},
    "window_kept_in_its_own_zone": {"the same window written in Karachi time gives the same key"},
    "label_zone_defaults_to_utc": {"the default zone is Asia/Karachi"},
    "window_ignores_the_period": {"a 15-minute job gets the 15-minute window that has just closed"},
    "config_keys_hashed_in_given_order": {
        "the order of a config's keys does not change its hash",
        "a config with its keys in another order gives the same key",
        "a nested config hashes canonically too", RECIPE},
    "source_left_out_of_key": {"changing the dataset source changes the key", RECIPE},
    "window_start_left_out_of_key": {"changing the window start changes the key", RECIPE},
    "job_left_out_of_key": {"changing the job name changes the key", RECIPE},
    "window_end_left_out_of_key": {"changing the window end changes the key", RECIPE},
}


@pytest.mark.parametrize("stem", sorted(NARROW_BUGS))
def test_a_bug_that_breaks_one_stated_rule_loses_the_cases_of_that_rule(stem):
    """The capstone's entries in NARROW_BUGS, read from the verdicts worked out above."""
    verdicts = verdicts_of(WRONG / "07_safe_scheduler" / f"{stem}.py")
    failed = {verdict.case.name for item in verdicts.values() for verdict in item
              if not verdict.passed}
    assert failed == NARROW_BUGS[stem]


# The hidden cases that no wrong solution of the corpus loses yet, each with why. Every other case
# is lost by at least one: a case that no wrong answer has ever failed is a test nobody has seen
# catch anything, so a new case comes with a classic bug that it catches, or a line here.
NOT_YET_LOST: dict[str, dict[str, str]] = {}


@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")
@pytest.mark.parametrize("exercise", EXERCISES, ids=lambda e: e.notebook)
def test_every_hidden_case_is_lost_by_some_wrong_solution(exercise):
    cases: set[str] = set()
    lost: set[str] = set()
    for entry in (entry for entry in ENTRIES if entry.exercise == exercise):
        for found in verdicts_of(entry.path).values():
            cases.update(verdict.case.name for verdict in found)
            lost.update(verdict.case.name for verdict in found if not verdict.passed)
    waiting = NOT_YET_LOST.get(exercise.notebook, {})
    assert set(waiting) <= cases, f"NOT_YET_LOST names no case of {exercise.notebook}"
    assert sorted(cases - lost) == sorted(waiting)


def test_the_gate_needs_most_valid_inputs_answered_and_one_right(monkeypatch):
    """On a made-up item: three valid cases (weights 1, 1, 2) and one rejection worth 1 of 5."""
    from autograder import suite
    from autograder.rubric import GradedItem

    item = GradedItem(grade_id="x", title="x", points=10, suite="x")
    cases = [suite.Case(name=f"valid {n}", probe="call", target="f", weight=w, rule="r" * 12)
             for n, w in enumerate((1, 1, 2))]
    cases.append(suite.Case(name="rejects", probe="call", target="f", weight=1, rule="r" * 12))
    expected = ({"value": 1}, {"value": 2}, {"value": 3}, {"raised": "ValueError"})
    monkeypatch.setattr(suite, "cases_for", lambda _: cases)
    monkeypatch.setattr(suite, "expected_outcomes", lambda _: expected)
    kinds = {"right": lambda i: {"value": expected[i]["value"]}, "wrong": lambda i: {"value": 0},
             "raised": lambda i: {"raised": "ValueError", "mro": ["ValueError"]}}

    def rejection(*valid: str) -> Verdict:
        outcomes = {f"x:{i}": kinds[kind](i) for i, kind in enumerate(valid)}
        outcomes["x:3"] = {"raised": "ValueError", "mro": ["ValueError", "Exception"]}
        return score(None, item, outcomes)[3]

    assert REJECTION_GATE == 0.5
    assert rejection("right", "wrong", "wrong").points == 2  # all answered, one right
    assert rejection("right", "raised", "wrong").points == 2  # 3 of 4 answered
    assert rejection("right", "wrong", "raised").points == 2  # 2 of 4 answered: enough
    closed = rejection("right", "raised", "raised")  # 1 of 4 answered
    assert closed.gated and not closed.passed and closed.points == 0
    assert "answered 25%" in closed.message
    assert rejection("wrong", "wrong", "wrong").gated  # answers, but never right
    assert rejection("raised", "raised", "raised").gated  # raises on everything
