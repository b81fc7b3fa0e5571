"""What feedback reveals is an explicit choice with a safe default (issue 9, item 2).

A hidden test reports its name, pass or fail and what the student's code did; the expected
answer only for the notebook's own worked examples (`Case.public`), unless the instructor
passes --show-expected after the deadline. Gradescope's visibility and report.md follow the
same choice: otherwise one submission that returns None would print the whole suite's
answers, and a lookup table of them would score full marks.
"""

from __future__ import annotations

import json

import fixtures
import pytest
from grader_cli import grade, place

from autograder import suite
from autograder.rubric import exercise_for
from autograder.sandbox import plain

PARSE = exercise_for("01_parse_cron_field")
RETURNS_NONE = "def parse_cron_field(field, low, high):\n    return None\n"


def _expected_texts(exercise) -> dict[str, tuple[bool, str]]:
    """Test name -> (public, the expected answer as feedback would print it)."""
    found = {}
    for item in exercise.items:
        for case, outcome in zip(suite.cases_for(item), suite.expected_outcomes(item.grade_id),
                                 strict=True):
            name = f"{exercise.notebook} · {item.title}: {case.name}"
            text = plain.show(outcome["value"]) if "value" in outcome else outcome["raised"]
            found[name] = (case.public, text)
    return found


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> dict[str, tuple[dict, str]]:
    root = tmp_path_factory.mktemp("feedback")
    notebook = fixtures.build_submission(PARSE, {"answer_parse_cron_field": RETURNS_NONE})
    path = place(root / "submitted", "eve", PARSE, notebook)
    runs = {}
    for label, options in (("default", ()), ("show", ("--show-expected",))):
        results, report = root / f"{label}.json", root / f"{label}.md"
        done = grade([path], results, "--sandbox=required", "--report", str(report), *options)
        assert done.returncode == 0, done.stderr[-2000:]
        runs[label] = (json.loads(results.read_text()), report.read_text())
    return runs


def test_some_cases_are_public_and_most_are_hidden():
    public = [case for item in PARSE.items for case in suite.cases_for(item) if case.public]
    hidden = [case for item in PARSE.items for case in suite.cases_for(item) if not case.public]
    assert 3 <= len(public) < len(hidden)
    shown = suite._released_text(PARSE.path)
    for case in public:  # each public case is a call the student copy writes out
        assert repr(case.args[0]) in shown or f'"{case.args[0]}"' in shown


def test_worked_examples_with_sets_and_minutes_written_out_are_public():
    """03's warm-up writes its examples as `next_run_minute({0, 30}, None, datetime(2025, 7,
    4, 10, 15, 20))` and `datetime(2025, 7, 4, 10, 0)`: those calls are the notebook's own,
    so their failures may show the answer the table already prints."""
    warm_up = exercise_for("03_next_run").items[0]
    public = [case.args for case in suite.cases_for(warm_up) if case.public]
    assert len(public) >= 4, public
    assert any(case[0] == {0, 30} and case[1] is None for case in public), public


def test_hidden_tests_never_show_their_expected_answer_by_default(graded):
    results, report = graded["default"]
    expected = _expected_texts(PARSE)
    failed = [t for t in results["tests"] if t["score"] < t["max_score"]]
    assert len(failed) == len(expected)  # None is never right
    for test in failed:
        public, text = expected[test["name"]]
        assert "None" in test["output"], test["output"]  # the student's own answer
        if public:
            assert test["visibility"] == "visible" and text in test["output"]
        else:
            assert test["visibility"] == "after_due_date", test
            assert "expected" not in test["output"].lower().replace("expected answer", "")
            if len(text) > 4:  # short answers like [5] could appear in the call itself
                assert text not in test["output"], test["output"]
                # The report around it may name ValueError for a public case next to it: that
                # bad input raises ValueError is a rule every notebook states.
                if text not in suite.ANSWER_ERRORS:
                    context = report.split(test["output"][:40])[0][-200:]
                    assert text not in context + test["output"]
    hidden_answers = [text for public, text in expected.values()
                      if not public and len(text) > 6 and text not in suite.ANSWER_ERRORS]
    leaked = [text for text in hidden_answers if text in report]
    assert not leaked, f"report.md shows hidden answers: {leaked[:3]}"


def test_show_expected_reveals_everything_for_after_the_deadline(graded):
    results, report = graded["show"]
    expected = _expected_texts(PARSE)
    for test in results["tests"]:
        if test["score"] < test["max_score"]:
            assert test["visibility"] == "visible"
            assert "expected" in test["output"] or "should raise" in test["output"], test
    assert all(text in report for _, text in expected.values() if len(text) < 60)


def test_a_lookup_table_of_the_feedback_earns_no_hidden_points(graded, tmp_path):
    """The attack from the issue: answer exactly the inputs and expected values that one
    failed submission's feedback showed, and nothing else."""
    results, _ = graded["default"]
    table = {}
    for item in PARSE.items:
        for case, outcome in zip(suite.cases_for(item), suite.expected_outcomes(item.grade_id),
                                 strict=True):
            name = f"{PARSE.notebook} · {item.title}: {case.name}"
            output = next(t["output"] for t in results["tests"] if t["name"] == name)
            text = plain.show(outcome["value"]) if "value" in outcome else None
            if text is not None and text in output:
                table[tuple(case.args)] = outcome["value"]
    public_points = sum(t["max_score"] for t in results["tests"]
                        if t["visibility"] == "visible")
    lookup = ("TABLE = " + repr({k: plain.from_plain(v) for k, v in table.items()}) + "\n"
              "def parse_cron_field(field, low, high):\n"
              "    return TABLE.get((field, low, high))\n")
    path = place(tmp_path, "mallory", PARSE,
                 fixtures.build_submission(PARSE, {"answer_parse_cron_field": lookup}))
    done = grade([path], tmp_path / "r.json", "--sandbox=required")
    assert done.returncode == 0, done.stderr[-2000:]
    score = json.loads((tmp_path / "r.json").read_text())["score"]
    assert score <= public_points + 0.01 < PARSE.max_score / 2


def test_a_value_of_another_kind_is_named_in_the_feedback():
    """A `parse_cron_field` that returns a tuple has every value right and fails every valid
    case (values are compared by type too, and the notebook's signature asks for a list): its
    feedback says so, hidden test or public, and says nothing of kinds when they agree."""
    from autograder.scoring import judge

    item = PARSE.items[0]
    cases, expected = suite.cases_for(item), suite.expected_outcomes(item.grade_id)
    index = next(i for i, outcome in enumerate(expected) if isinstance(outcome.get("value"), list)
                 and outcome["value"])
    as_tuple = {"value": {"__tuple__": expected[index]["value"]}}
    for reveal in (True, False):
        passed, message = judge(cases[index], expected[index], as_tuple, reveal=reveal)
        assert not passed and "(a tuple, where the rules ask for a list)" in message, message
    passed, message = judge(cases[index], expected[index], {"value": [99]}, reveal=True)
    assert not passed and "where the rules ask for" not in message, message
    assert [plain.kind(plain.to_plain(value)) for value in
            (None, True, 1, 1.5, float("nan"), "x", [], (), {}, set(), b"")] == [
        "None", "a bool", "an int", "a float", "a float", "a string", "a list", "a tuple",
        "a dict", "a set", "bytes"]


def test_a_list_of_ints_where_the_rules_ask_for_bools_is_named_in_the_feedback():
    """`cron_matches` returning 1 and 0 has every answer right but for its type: a hidden
    case's message names the kinds (never which entry differs), and a list of the right kind
    with a wrong entry says nothing of kinds."""
    from autograder.scoring import judge

    item = exercise_for("02_cron_matches").items[0]
    cases, expected = suite.cases_for(item), suite.expected_outcomes(item.grade_id)
    index = next(i for i, outcome in enumerate(expected) if isinstance(outcome.get("value"), list)
                 and len(outcome["value"]) > 1)
    as_ints = {"value": [int(value) for value in expected[index]["value"]]}
    passed, message = judge(cases[index], expected[index], as_ints, reveal=False)
    assert not passed and "(a list of ints, where the rules ask for a list of bools)" in message
    flipped = {"value": [not value for value in expected[index]["value"]]}
    passed, message = judge(cases[index], expected[index], flipped, reveal=False)
    assert not passed and "where the rules ask for" not in message, message


def test_an_answer_that_uses_a_name_only_a_skipped_cell_defines_is_told_why_it_fails(tmp_path):
    """03's timing cell defines `field_ranges`: an answer that uses it runs in the notebook
    (and passes its self-checks) but not when graded, where worked examples, figures and
    self-checks are not run. The feedback says so, naming the course's own name; a NameError
    for any other name (or a message that merely claims one) adds nothing."""
    exercise = exercise_for("03_next_run")
    reference = fixtures.reference_answers(exercise)
    uses_example = reference["answer_next_run"] + (
        "\n\nreference_next_run = next_run\n\n\n"
        "def next_run(expression, after):\n"
        "    assert field_ranges[0] == (0, 59)\n"
        "    return reference_next_run(expression, after)\n")
    notebook = fixtures.build_submission(exercise, {"answer_next_run": uses_example})
    path = place(tmp_path / "submitted", "eve", exercise, notebook)
    report = tmp_path / "report.md"
    done = grade([path], tmp_path / "r.json", "--sandbox=required", "--report", str(report))
    assert done.returncode == 0, done.stderr[-2000:]
    problems = json.loads((tmp_path / "r.json").read_text())["output"]
    told = ("your code uses 'field_ranges', which only cells that grading does not run (worked "
            "examples, figures, self-checks) define: define or import it in your answer cells")
    assert told in problems and told in report.read_text()
