"""The fast tier: the grading path's pure steps, on synthetic data (no kernel, no sandbox).

`make test-fast` runs every test marked `fast`; this file holds the unit tests of plain data,
untrusted outcomes, verdicts, extraction and counting each exercise once.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import os
import re
import resource
import subprocess
import sys
import threading

import pytest
from factories import answer_cell, grade_cell, markdown_cell, notebook, student_cell
from hypothesis import given, settings
from hypothesis import strategies as st

from autograder import escape, grading, isolation, processes, runner, scoring, suite
from autograder.notebook import extract
from autograder.results import ItemResult, NotebookResult, TestResult, count_once
from autograder.rubric import EXERCISES, exercise_for
from autograder.sandbox import plain
from autograder.scoring import judge
from autograder.suite import Case

pytestmark = pytest.mark.fast
PARSE = exercise_for("01_parse_cron_field")
ANSWER_ID = "answer_parse_cron_field"


# -- plain data ------------------------------------------------------------------------------

@pytest.mark.parametrize("value", [
    None, True, 3, 2.5, "text", [1, [2]], (1, 2), {"a": 1, 2: "b"}, {1, 2},
    dt.datetime(2026, 3, 29, 1, 30, tzinfo=dt.timezone.utc), dt.date(2024, 2, 29),
    dt.timedelta(minutes=5), b"\x00\xff", float("inf"),
])
def test_plain_round_trips_what_crosses_the_sandbox(value):
    data = plain.to_plain(value)
    assert plain.is_plain(json.loads(json.dumps(data)))
    assert plain.from_plain(json.loads(json.dumps(data))) == value


def test_plain_is_type_strict():
    assert not plain.same(plain.to_plain(1), plain.to_plain(True))
    assert not plain.same(plain.to_plain(1), plain.to_plain(1.0))
    assert not plain.same(plain.to_plain([1, 2]), plain.to_plain((1, 2)))
    assert plain.same(plain.to_plain(0.1 + 0.2), plain.to_plain(0.3))


PLAIN_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=4) | st.tuples(inner, inner)
    | st.dictionaries(st.text(max_size=3) | st.integers(0, 3), inner, max_size=4),
    max_leaves=12)


@settings(max_examples=300, deadline=None)
@given(PLAIN_VALUES, PLAIN_VALUES)
def test_same_decides_as_the_type_strict_comparison_whatever_its_shortcut(expected, actual):
    """`same` first compares in C (== and JSON text); its answer is the element-by-element
    one's, tuples and integer keys included."""
    slow = plain._same(expected, actual, 1e-9, 1e-12, 0)
    assert plain.same(expected, actual) == slow
    assert plain.same(expected, expected)


def test_an_object_that_equals_everything_matches_nothing():
    class AlwaysEqual:
        def __eq__(self, other):
            return True

    data = plain.to_plain(AlwaysEqual())
    assert plain.is_plain(data)
    assert not plain.same(plain.to_plain([0, 15, 30, 45]), data)


@pytest.mark.parametrize("data", [
    {"__dict__": [[1]]}, {"__tuple__": "x"}, {"__datetime__": 5, "tz": None, "fold": 0},
    {"a": 1, "b": 2}, {"__bool__": True}, object(),
])
def test_malformed_plain_data_is_recognised(data):
    assert not plain.is_plain(data)


def _is_plain_one_call_per_item(data: object, depth: int = 0) -> bool:
    """`plain.is_plain` as it was first written (a call for every item): the oracle."""
    if depth > 60:
        return False
    if data is None or type(data) in (bool, int, float, str):
        return True
    if type(data) is list:
        return all(_is_plain_one_call_per_item(item, depth + 1) for item in data)
    if type(data) is not dict:
        return False
    if "__datetime__" in data:
        tz = data.get("tz")
        return (set(data) == {"__datetime__", "tz", "fold"}
                and isinstance(data["__datetime__"], str) and type(data["fold"]) is int
                and (tz is None or plain._is_zone(tz)))
    if len(data) != 1:
        return False
    (key, value), = data.items()
    if key not in plain._MARKERS or not isinstance(value, plain._MARKERS[key]) \
            or type(value) is bool and key != "__toolarge__":
        return False
    if key == "__dict__":
        return all(type(pair) is list and len(pair) == 2
                   and _is_plain_one_call_per_item(pair[0], depth + 1)
                   and _is_plain_one_call_per_item(pair[1], depth + 1) for pair in value)
    if type(value) is list:
        return all(_is_plain_one_call_per_item(item, depth + 1) for item in value)
    return True


JSON_LIKE = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=3)
    | st.sampled_from(["__dict__", "__tuple__", "__datetime__"]),
    lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(st.sampled_from(["__dict__", "__tuple__", "__set__", "__float__",
                                       "__datetime__", "tz", "fold", "x"]), inner, max_size=3),
    max_leaves=20)


def _nested(value: object, levels: int, kind: str) -> object:
    for _ in range(levels):
        value = [value] if kind == "list" else {"__dict__": [[value, 1]]} if kind == "dict" \
            else {"__tuple__": [value]}
    return value


@settings(max_examples=500, deadline=None)
@given(JSON_LIKE | PLAIN_VALUES.map(plain.to_plain), st.integers(50, 70),
       st.sampled_from(["list", "dict", "tuple"]))
def test_is_plain_decides_as_a_call_for_every_item_would(data, levels, kind):
    """`is_plain` checks a list's leaves without a call each; it accepts and refuses exactly
    what the call-per-item version does, at the depth limit too."""
    for value in (data, _nested(data, levels, kind), _nested([], levels, kind),
                  _nested([1, "a"], levels, kind)):
        assert plain.is_plain(value) == _is_plain_one_call_per_item(value)


def _variants(value: object):
    """Values equal to `value` whose JSON text may differ: each int, float or bool swapped for
    an equal one of another type, -0.0 for 0.0, and dicts with their keys in reverse order."""
    if type(value) is bool:
        yield int(value)
    elif type(value) is int and abs(value) < 2**53:
        yield float(value)
        if value in (0, 1):
            yield bool(value)
    elif type(value) is float:
        yield -value if value == 0 else value
        if value.is_integer():
            yield int(value)
    elif type(value) is list:
        for index, item in enumerate(value):
            for other in _variants(item):
                yield [*value[:index], other, *value[index + 1:]]
    elif type(value) is dict:
        yield dict(reversed(value.items()))
        for key, item in value.items():
            for other in _variants(item):
                yield {**value, key: other}


@settings(max_examples=500, deadline=None)
@given(JSON_LIKE)
def test_an_outcome_is_the_reference_s_value_exactly_when_its_json_text_is(reference):
    """The scorer's quick check (equal, with the same exact bytes) says what `plain.identical`
    says of a value read from JSON against the reference's value: so 1.0 is not 1, nor true
    1, nor -0.0 0.0, nor a dict in another order the same."""
    has_text = scoring._text(reference) is not None  # no infinity: no entry in the table
    known = (reference, scoring._exact(reference)) if has_text else None
    for text in {json.dumps(reference), *map(json.dumps, _variants(reference))}:
        outcome = json.loads(text)
        assert scoring._is_reference_value(known, {"value": outcome}) == \
            (has_text and plain.identical(reference, outcome)), (reference, text)


def test_show_shortens_long_values():
    assert len(plain.show(list(range(10_000)), 50)) <= 50


@settings(max_examples=300, deadline=None)
@given(st.lists(PLAIN_VALUES | st.sets(st.integers(0, 9), max_size=3)
                | st.datetimes(timezones=st.none() | st.just(dt.timezone.utc)), max_size=30),
       st.integers(6, 200))
def test_show_stops_early_but_shows_the_same_text(values, limit):
    """`show` stops rendering once it has more than `limit` characters; what it shows is the
    start of the whole text all the same."""
    data = plain.to_plain(values)
    whole = plain.show(data, 10**9)
    shown = plain.show(data, limit)
    assert shown == (whole if len(whole) <= limit else whole[:limit - 5] + " ...]")


@given(st.recursive(st.integers() | st.text(max_size=4), lambda inner: st.lists(inner, max_size=5)
                    | st.tuples(inner) | st.tuples(inner, inner), max_leaves=20))
def test_show_writes_lists_tuples_numbers_and_strings_as_python_does(value):
    assert plain.show(plain.to_plain(value), 10**9) == repr(value)


def test_show_tells_the_second_of_two_equal_wall_clock_times_apart():
    """fold=1 is shown: plain values compare it, so two moments shown alike would differ."""
    from zoneinfo import ZoneInfo

    new_york = ZoneInfo("America/New_York")
    first = dt.datetime(2025, 11, 2, 1, 31, tzinfo=new_york)
    shown = [plain.show(plain.to_plain(first.replace(fold=fold))) for fold in (0, 1)]
    assert shown == ["datetime(2025-11-02T01:31:00, America/New_York)",
                     "datetime(2025-11-02T01:31:00, America/New_York, fold=1)"]
    assert plain.show(plain.to_plain(dt.datetime(2025, 11, 2, 1, 31, fold=1))) == \
        "datetime(2025-11-02T01:31:00, fold=1)"


@pytest.mark.parametrize("data", [
    {"__datetime__": "2026-01-01T00:00:00", "tz": 5, "fold": 0},  # a zone that is not a dict
    {"__bytes__": "not hex"}, {"__dict__": [[1]]},
])
def test_show_calls_a_malformed_value_unreadable(data):
    assert plain.show(data) == "<unreadable value>"


# -- untrusted outcomes ----------------------------------------------------------------------

@pytest.mark.parametrize("outcome", [
    {"value": [1, 2]}, {"raised": "ValueError", "mro": ["ValueError", "Exception"],
                        "message": "bad field"},
    {"missing": "parse_cron_field is not defined"}, {"timeout": 5.0},
    {"timeout": 1.0, "waited": 14.0},
])
def test_clean_outcome_keeps_each_shape_the_harness_makes(outcome):
    assert scoring.clean_outcome(outcome) == outcome


@pytest.mark.parametrize("outcome", [
    None, [], {"value": 1, "extra": 2}, {"raised": 1, "mro": [], "message": ""},
    {"raised": "E", "mro": "E", "message": ""}, {"timeout": "5"}, {"missing": 3},
    {"raised": "E", "mro": ["E"] * 101, "message": ""},
    {"timeout": 1.0, "waited": "14"}, {"timeout": 1.0, "waited": float("inf")},
    {"timeout": 1.0, "waited": 14.0, "extra": 1},
])
def test_clean_outcome_refuses_every_other_shape(outcome):
    assert scoring.clean_outcome(outcome) is None


def test_clean_outcome_marks_a_malformed_value_and_caps_long_text():
    assert scoring.clean_outcome({"value": {"__nope__": 1}})["value"] != {"__nope__": 1}
    long = scoring.clean_outcome({"raised": "E" * 1000, "mro": ["E"], "message": "m" * 10**5})
    assert len(long["raised"]) <= 200 and len(long["message"]) <= 2000


def test_results_the_grader_reads_are_bounded_in_values_not_only_in_bytes():
    """A graded function can return 200,000 nested empty lists in 400 KB of JSON; twenty such
    answers (8 MB, within the 16 MiB the grader reads) became 4 million lists and over 250 MiB
    of the grader's memory. Past VALUES_CAP the rest of the results is dropped unread, the
    answers before it count, and the tests after it fail with a reason that says so."""
    import tracemalloc

    item = PARSE.items[0]
    ids = [suite.case_id(item, index) for index in range(len(suite.cases_for(item)))]
    chain = "[" * 60 + "]" * 60
    nested = "[" + ", ".join([chain] * 3300) + "]"
    lines = [json.dumps({"event": "case", "id": ids[0], "outcome": {"value": [0]}})]
    lines += [f'{{"event": "case", "id": "{ident}", "outcome": {{"value": {nested}}}}}'
              for ident in ids[1:21]]
    lines.append(json.dumps({"event": "done"}))
    sink = runner._Sink(runner.RESULTS_CAP)
    sink.add("\n".join(lines).encode() + b"\n")
    assert sink.total < runner.RESULTS_CAP  # within the bytes the grader reads
    tracemalloc.start()
    try:
        parsed = runner._parse_events(sink)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 128 * 2**20, f"{peak / 2**20:.0f} MiB"
    events, dropped, cut = parsed
    kept = len(events)
    assert cut and 2 <= kept < 21 and dropped == 22 - kept
    assert [event["id"] for event in events] == ids[:kept]  # in order, each whole
    assert events[1]["outcome"]["value"][0] == json.loads(chain)
    run = runner.RunResult(events=events, dropped_events=dropped, cut=cut, returncode=0)
    result = scoring.score_run(PARSE, run, runner.Limits(), "x.ipynb")
    assert result.problems[0] == (
        "the hidden tests sent back more results than the grader reads (16 MiB, or 1,000,000 "
        "values); the tests whose results came after that count as failed")
    tests = result.items[0].tests
    assert "your code gave [[[[" in tests[1].output and not tests[1].passed
    assert all(test.output.endswith("no result: the tests before this one sent back more "
                                    "results than the grader reads (16 MiB, or 1,000,000 values)")
               for test in tests[kept:])


# -- verdicts --------------------------------------------------------------------------------

CASE = Case(name="a star selects every value", probe="call", target="parse_cron_field",
            args=("*/15", 0, 59))
REJECT = Case(name="an empty field is rejected", probe="call", target="parse_cron_field",
              args=("", 0, 59), message_contains=("empty",))
ERROR = {"raised": "ValueError", "mro": ["ValueError", "Exception", "BaseException"],
         "message": "the field is empty"}


def test_judge_passes_an_equal_value_only():
    expected = {"value": [0, 15, 30, 45]}
    assert judge(CASE, expected, {"value": [0, 15, 30, 45]})[0]
    assert not judge(CASE, expected, {"value": [0, 15, 30]})[0]
    assert not judge(CASE, expected, {"value": (0, 15, 30, 45)})[0]
    assert not judge(CASE, expected, None)[0]
    assert not judge(CASE, expected, {"timeout": 5.0})[0]


def test_judge_wants_the_same_exception_class_or_a_subclass():
    assert judge(REJECT, ERROR, ERROR)[0]
    subclass = {**ERROR, "raised": "FieldError", "mro": ["FieldError", *ERROR["mro"]]}
    assert judge(REJECT, ERROR, subclass)[0]
    assert not judge(REJECT, ERROR, {"raised": "TypeError", "mro": ["TypeError"],
                                     "message": "empty"})[0]
    assert not judge(REJECT, ERROR, {"value": []})[0]


def test_judge_checks_what_the_message_must_mention():
    assert not judge(REJECT, ERROR, {**ERROR, "message": "bad"})[0]


def test_a_message_that_lacks_a_word_is_shown_cut_short():
    """A message is kept up to 2,000 characters, which repr showed whole: 20 KB of escapes
    in each such test's feedback for a message of astral characters."""
    passed, said = judge(REJECT, ERROR, {**ERROR, "message": "\U0010ffff" * 2000})
    assert not passed and len(said) < 2500, len(said)
    assert said.endswith("... (2,000 characters)")
    short = judge(REJECT, ERROR, {**ERROR, "message": "bad"})[1]
    assert short.endswith("message should mention 'empty'; it was 'bad'")


def test_a_failure_message_names_the_call():
    passed, message = judge(CASE, {"value": [0, 15, 30, 45]}, {"value": []})
    assert not passed and "parse_cron_field('*/15', 0, 59)" in message


# -- extraction ------------------------------------------------------------------------------

def test_extract_runs_answer_cells_and_added_cells_in_order_and_nothing_else():
    book = notebook(markdown_cell("# Reading one cron field"),
                    answer_cell(ANSWER_ID, "def parse_cron_field(f, lo, hi):\n    return []"),
                    student_cell("helper = 1"),
                    grade_cell("test_parse_cron_field", 25, "assert False"))
    extracted = extract(book, PARSE)
    assert [cell["label"] for cell in extracted.cells] == [f"answer cell {ANSWER_ID}",
                                                           "your cell 3"]
    assert "return []" in extracted.cells[0]["source"]
    assert extracted.problems == []
    assert all("assert False" not in cell["source"] for cell in extracted.cells)


def test_extract_reports_a_missing_a_duplicated_and_a_retyped_answer_cell():
    assert any("is missing" in p for p in extract(notebook(student_cell("x = 1")),
                                                  PARSE).problems)
    twice = extract(notebook(answer_cell(ANSWER_ID, "a = 1"), answer_cell(ANSWER_ID, "a = 2")),
                    PARSE)
    assert len(twice.cells) == 1
    assert twice.problems == [f"the answer cell {ANSWER_ID!r} appears 2 times; only its first "
                              "copy was graded"]
    retyped = markdown_cell("a = 1")
    retyped.metadata = answer_cell(ANSWER_ID).metadata
    assert any("markdown" in p for p in extract(notebook(retyped), PARSE).problems)


def test_thousands_of_copies_of_an_answer_cell_are_one_problem():
    """Each copy was a problem of its own: 4,900 copies (the 5,000 cells a notebook may hold)
    made 4,900 lines in the report, results.json and the terminal's report (550 KB)."""
    copies = [answer_cell(ANSWER_ID, f"a = {number}") for number in range(4900)]
    extracted = extract(notebook(*copies), PARSE)
    assert [cell["source"] for cell in extracted.cells] == ["a = 0"]
    assert extracted.problems == [f"the answer cell {ANSWER_ID!r} appears 4,900 times; only "
                                  "its first copy was graded"]


def test_extract_starts_with_the_trusted_setup_cells():
    extracted = extract(notebook(answer_cell(ANSWER_ID)), PARSE)
    assert isinstance(extracted.prelude, list)


# -- each exercise counts once ---------------------------------------------------------------

def result(path: str, notebook_name: str, score: float) -> NotebookResult:
    exercise = exercise_for(notebook_name)
    return NotebookResult(path=path, notebook=notebook_name,
                                  assignment=exercise.assignment, score=score,
                                  max_score=exercise.max_score)


def test_count_once_prefers_the_notebook_named_like_the_exercise():
    found = count_once([
        result("ada/schedules/01_parse_cron_field-Copy1.ipynb", "01_parse_cron_field", 25),
        result("ada/schedules/01_parse_cron_field.ipynb", "01_parse_cron_field", 10),
    ])
    assert [r.score for r in found] == [0.0, 10]
    assert found[0].max_score == 0 and "not counted" in found[0].problems[0]


def test_count_once_keeps_different_exercises():
    found = count_once([result(f"s/{e.notebook}.ipynb", e.notebook, e.max_score)
                                for e in EXERCISES])
    assert sum(r.score for r in found) == sum(e.max_score for e in EXERCISES)


_TEXT = st.text(max_size=8)
_TESTS = st.builds(TestResult, name=_TEXT, score=st.floats(0, 5), max_score=st.floats(0, 5),
                   output=_TEXT, passed=st.booleans(), visibility=_TEXT)
_ITEMS = st.builds(ItemResult, grade_id=_TEXT, title=_TEXT, score=st.floats(0, 5),
                   max_score=st.floats(0, 5), tests=st.lists(_TESTS, max_size=3))


@settings(max_examples=200, deadline=None)
@given(st.builds(NotebookResult, path=_TEXT, notebook=_TEXT, assignment=_TEXT,
                 score=st.floats(0, 50), max_score=st.floats(0, 50),
                 items=st.lists(_ITEMS, max_size=3), problems=st.lists(_TEXT, max_size=2),
                 execution_time=st.floats(0, 9), stdout=_TEXT, stderr=_TEXT,
                 readable=st.booleans(), grader_failed=st.booleans(),
                 flags=st.lists(_TEXT, max_size=2), timed_out=st.booleans()))
def test_a_result_as_a_dict_is_what_asdict_gives_and_shares_no_list(result):
    data = result.to_dict()
    assert data == dataclasses.asdict(result)
    assert json.dumps(data) == json.dumps(dataclasses.asdict(result))  # the same order, too
    assert NotebookResult.from_dict(data) == result
    data["problems"].append("x")
    data["flags"].append("x")
    for item in data["items"]:
        item["tests"].append("x")
    assert data != result.to_dict()


@given(st.text(st.characters(exclude_categories=()) | st.sampled_from("\ud800\udfff\x00é")))
def test_text_replaces_lone_surrogates_and_nothing_else(value):
    assert escape.text(value) == re.sub("[\ud800-\udfff]", "\ufffd", value)
    assert type(escape.text(value)) is str
    escape.text(value).encode("utf-8")


SKIPPED_IMPORTS = """
import importlib, pkgutil, sys
import autograder
for name in autograder.CLI_SKIPS:
    sys.modules.setdefault(name, None)
failed = []
modules = [i.name for i in pkgutil.walk_packages(autograder.__path__, "autograder.")]
for name in [m for m in modules if not m.endswith("__main__")] + ["nbgrader.apps", "nbconvert"]:
    try:
        importlib.import_module(name)
    except Exception as error:
        failed.append(f"{name}: {error!r}")
print(failed)
"""


def test_what_the_command_line_goes_without_no_module_needs():
    """`python -m autograder` skips some of jsonschema's format checkers for a faster start;
    every module of the package, and nbgrader, must still import without them."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", SKIPPED_IMPORTS], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "[]"


def test_the_capstone_probes_quote_data_cannot_be_changed_by_notebook_code():
    """Notebook code runs beside the probes and can reach their module; the quote files the
    probes feed it come from read-only tables, as the labels of raw inputs do."""
    from autograder.sandbox.probes import _capstone

    with pytest.raises(TypeError):
        _capstone._DRAWS[(1, 12)] = ()  # type: ignore[index]
    assert _capstone.quotes(1) == _capstone.VARIANTS["raw #1"]


def test_notebooks_at_once_are_one_more_than_cores_within_memory_and_eight():
    from autograder.cli import default_jobs

    gib = 2**30
    assert default_jobs(2, 24 * gib) == 3
    assert default_jobs(2, 3 * gib) == 2, "1,152 MiB a sandbox: three do not fit in 3 GiB"
    assert default_jobs(16, 64 * gib) == 8
    assert default_jobs(1, 0) == 2, "memory unknown: cores alone decide"
    assert default_jobs(1, 512 * 2**20) == 1, "always at least one"


def test_a_value_of_another_kind_inside_a_result_is_named():
    """1680.0 where the rules ask for the int 1680 looks the same in a message; the message
    says which kind came back and which the rules ask for (notebook 07's grace time)."""
    from autograder.sandbox import plain

    expected = plain.to_plain({"misfire_grace_time": 1680, "coalesce": True})
    got = plain.to_plain({"misfire_grace_time": 1680.0, "coalesce": True})
    message = scoring._dict_differences(expected, got)
    assert message.startswith("'misfire_grace_time': expected 1680, got 1680.0 (a float, where "
                              "the rules ask for an int)"), message
    assert "coalesce" not in message


@given(st.text(alphabet=st.characters(blacklist_categories=("Cc", "Cf", "Zl", "Zp", "Co", "Cs",
                                                          "Cn")).filter(
    lambda char: not escape.shown_as_escape(char)), max_size=8)
       | st.text(alphabet=st.sampled_from(" '=+-@ax\\"), max_size=8))
@settings(max_examples=300, deadline=None)
def test_a_name_can_be_read_back_from_its_gradebook_cell(name):
    """A gradebook keys its rows by the cell a name becomes (export, gradebook), so two students
    whose names differ must never share one: the cell gives the name back, one leading ' off
    and each doubled backslash halved."""
    cell = escape.csv_key(name)
    assert (cell[1:] if cell.startswith("'") else cell).replace("\\\\", "\\") == name


NAMES = st.text(alphabet=st.sampled_from("a'=-\\e\x1b\u200b\n u2") | st.characters(), max_size=8)


@given(NAMES, NAMES)
@settings(max_examples=500, deadline=None)
def test_two_names_never_share_a_gradebook_cell(one, other):
    """An ESC, a zero-width space or a newline is shown as an escape (\\e, \\u200b, \\n); a
    student who names a folder with that very text (`kim\\ex` beside `kim` ESC `x`) still gets
    a row of their own, never another student's score."""
    if one != other:
        assert escape.csv_key(one) != escape.csv_key(other)
    assert escape.csv_key("kim\x1bx") != escape.csv_key("kim\\ex")


def test_the_reference_cost_clock_counts_work_done_under_a_time_limit():
    """What a reference's hidden tests cost orders a batch (longest first). Each case runs
    under `time_limit`, whose armed CPU timer makes Linux answer `time.process_time()` at
    scheduler-tick resolution: 2 ms of work in 1 ms steps there can read as none."""
    import time

    from autograder import grading
    from autograder.sandbox.harness import time_limit

    started = grading._cpu_seconds()
    for _ in range(2):
        with time_limit(5.0):
            until = time.thread_time() + 0.001  # this thread's clock stays exact
            while time.thread_time() < until:
                pass
    assert grading._cpu_seconds() - started >= 0.002


def test_a_failure_message_points_at_the_first_entry_that_differs():
    """A long result (the rows a runs-table script observed) is cut short in a message, often
    before the entry that is wrong: the message names where the first difference is and what
    the student's code gave there, and a hidden case still shows nothing it expected."""
    from autograder.sandbox import plain

    def steps(owner: str) -> object:
        rows = [{"run": "run #1", "state": "SUCCEEDED", "attempt": 1, "owner": owner,
                 "lease_expires_at": 300.0, "created_at": 0.0}]
        return plain.to_plain([["acquire", "run #1", 0, "worker-1", {"action": "started"}],
                               ["finish", "run #1", 1, "SUCCEEDED", True],
                               ["acquire", "run #1", 100, "worker-2", {"action": "skipped"}],
                               ["tables", (rows, [("run #1", 1, "worker-1", "first")])]])

    expected, got = {"value": steps("worker-1")}, {"value": steps("worker-2")}
    assert scoring.first_difference(expected["value"], got["value"]) == (
        "[3][1][0][0]['owner']", "worker-1", "worker-2")
    hidden = judge(CASE, expected, got, reveal=False)[1]
    assert "differs is at [3][1][0][0]['owner'], where your code gave 'worker-2'" in hidden
    assert "worker-1'" not in hidden.split("your code gave")[-1].split("(")[0]
    shown = judge(CASE, expected, got)[1]
    assert shown.endswith("the first difference is at [3][1][0][0]['owner']: expected "
                          "'worker-1', got 'worker-2'"), shown
    assert scoring.first_difference([1, 2], [1, 2, 3]) == ("", [1, 2], [1, 2, 3])
    assert scoring.first_difference([1, 2], [1, 2]) is None
    assert "first difference is at [1]: expected 2, got 3" in judge(
        CASE, {"value": [1, 2]}, {"value": [1, 3]})[1]


def test_a_hidden_rejection_with_the_wrong_words_says_what_its_message_should_mention():
    """The right exception whose message lacks the rule's words ("cycle detected", or the
    name the call holds): the message says so, as it does for a public case; what a hidden
    case expects of anything else stays hidden."""
    wrong_words = {"raised": "ValueError", "mro": ["ValueError", "Exception"],
                   "message": "circular dependency among risk"}
    message = judge(REJECT, ERROR, wrong_words, reveal=False)[1]
    assert "raised ValueError as it should, but its message should mention 'empty'" in message
    value = judge(REJECT, ERROR, {"value": [1]}, reveal=False)[1]
    assert "does not show its expected answer" in value and "ValueError" not in value


def test_where_a_list_of_booleans_differs_is_not_shown_for_a_hidden_case():
    """In [True, False, True] the place that differs would say what it should be."""
    from autograder.sandbox import plain

    expected = {"value": plain.to_plain([True, True, False] + [True] * 60)}
    got = {"value": plain.to_plain([True, True, True] + [True] * 60)}
    assert "differs" not in judge(CASE, expected, got, reveal=False)[1]
    assert "first difference is at [2]: expected False, got True" in judge(CASE, expected, got)[1]


def _variants(value: object) -> list:
    """Values that equal `value` in Python but not as plain data (1.0 for 1, True for 1), the
    value itself, and NaN in place of a number."""
    if isinstance(value, list) and value and type(value[0]) is int:
        return [value, [float(value[0]), *value[1:]], [bool(value[0] == 1) if value[0] in (0, 1)
                                                       else value[0], *value[1:]],
                [float("nan"), *value[1:]]]
    return [value]


def test_outcomes_read_as_the_reference_s_value_score_as_a_full_judgement_does():
    """score_run passes an outcome that is the reference's value without judging it again: the
    verdicts must be exactly those of judging every outcome in full, for the value itself and
    for values Python calls equal that plain data does not (1.0 and True for 1)."""
    item = PARSE.items[0]
    expected = suite.expected_outcomes(item.grade_id)
    for variant in range(4):
        outcomes = {}
        for index, outcome in enumerate(expected):
            if "value" in outcome:
                choices = _variants(outcome["value"])
                outcomes[suite.case_id(item, index)] = {"value": choices[variant % len(choices)]}
        run = runner.RunResult(events=[*({"event": "case", "id": ident, "outcome": outcome}
                                         for ident, outcome in outcomes.items()),
                                       {"event": "done"}], returncode=0)
        result = scoring.score_run(PARSE, run, runner.Limits(), "x.ipynb")
        full = scoring.score(PARSE, item, {ident: scoring.clean_outcome(outcome)
                                           for ident, outcome in outcomes.items()})
        answered = [suite.case_id(item, index) in outcomes for index in range(len(expected))]
        tests = result.items[0].tests
        assert [(t.passed, t.score) for t in tests] == \
            [(v.passed, round(v.points, 4)) for v in full]
        assert [t.output for t, mine in zip(tests, answered, strict=True) if mine] == \
            [v.message or "passed" for v, mine in zip(full, answered, strict=True) if mine]
        # A value changed into one Python calls equal but plain data does not fails its test,
        # on both paths (the reference's own value passes).
        changed = [suite.case_id(item, index) in outcomes and json.dumps(
            outcomes[suite.case_id(item, index)]["value"]) != json.dumps(outcome["value"])
            for index, outcome in enumerate(expected)]
        assert any(changed) or variant == 0
        assert [t.passed for t, mine in zip(tests, changed, strict=True) if mine] == \
            [False] * sum(changed)
        assert all(t.passed for t, mine, given in zip(tests, changed, answered, strict=True)
                   if given and not mine)


@pytest.mark.fast
@pytest.mark.parametrize("wrap", [lambda v: [v], lambda v: (v,), lambda v: {"k": v},
                                  lambda v: frozenset({v})], ids=["list", "tuple", "dict", "set"])
def test_a_value_is_compared_40_levels_deep_and_past_that_is_too_large(wrap):
    """docs/grader.md, Limits: "compared up to ... 40 levels deep"; what to_plain gives at any depth
    still reads as plain data."""
    def nested(levels):
        value = 0
        for _ in range(levels):
            value = wrap(value)
        return value

    assert "__toolarge__" not in json.dumps(plain.to_plain(nested(40)))
    assert "__toolarge__" in json.dumps(plain.to_plain(nested(41)))
    assert all(plain.is_plain(plain.to_plain(nested(levels))) for levels in (40, 41, 70))


@pytest.mark.fast
def test_nbval_runs_start_a_kernel_again_only_when_it_dies_while_starting(monkeypatch):
    """conftest.py at the repository's root: a kernel that dies while starting (two xdist
    processes chose the same port) is started again, at most KERNEL_STARTS times in all."""
    import importlib.util

    from nbval import kernel

    from autograder.reference import REPOSITORY

    spec = importlib.util.spec_from_file_location("root_conftest", REPOSITORY / "conftest.py")
    assert spec is not None and spec.loader is not None
    root = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(root)
    calls = []

    def dies_twice(*args, **kwargs):
        calls.append(kwargs)
        if len(calls) < 3:
            raise RuntimeError("Kernel died before replying to kernel_info")
        return "manager", "client"

    class Config:
        def getoption(self, name, default=None):
            return name == "nbval_lax"

    monkeypatch.setattr(kernel, "start_new_kernel", dies_twice)
    root.pytest_configure(Config())
    assert kernel.start_new_kernel(kernel_name="python") == ("manager", "client")
    assert calls == [{"kernel_name": "python"}] * 3
    calls.clear()

    def always_dies(*args, **kwargs):
        calls.append(kwargs)
        raise RuntimeError("Kernel died before replying to kernel_info")

    monkeypatch.setattr(kernel, "start_new_kernel", always_dies)
    root.pytest_configure(Config())
    with pytest.raises(RuntimeError):
        kernel.start_new_kernel(kernel_name="python")
    assert len(calls) == root.KERNEL_STARTS


def test_a_sandbox_sharing_the_user_s_uid_stops_short_of_the_user_s_process_limit():
    """Without bubblewrap, run by an ordinary user, every sandbox runs as the grader's uid: its
    process limit leaves the user what they run besides it, plus --jobs x the process limit,
    and never more than half of what the user's own limit leaves (nor the limit itself)."""
    unlimited = resource.RLIM_INFINITY
    assert isolation.share(40, unlimited, 2 * 64) == 40 + 128
    assert isolation.share(40, 100_000, 2 * 64) == 40 + 128
    assert isolation.share(40, 240, 2 * 64) == 40 + 100  # half of the 200 left
    assert isolation.share(40, 41, 2 * 64) == 40  # nothing to share: no sandbox forks
    assert isolation.share(300, 240, 2 * 64) == 300  # over the limit already
    for outside in range(0, 300, 7):
        for soft in range(1, 400, 13):
            limit = isolation.share(outside, soft, 512)
            assert outside <= limit and (limit <= soft or limit == outside)
            assert soft - limit >= (soft - outside) // 2 or limit == outside


def test_only_a_sandbox_sharing_the_user_s_uid_gets_the_shared_process_limit(monkeypatch):
    """As root (a uid per sandbox) and with bubblewrap's user namespace (the uid counted apart
    in each) the process limit is the sandbox's own, as before; the fallback run by an
    ordinary user gets `shared_process_limit` of --jobs x that limit, or none where the uid's
    processes cannot be counted (no /proc)."""
    limits = runner.Limits(processes=16, sandboxes=3)
    monkeypatch.setattr(isolation, "shared_process_limit", lambda budget: 1000 + budget)
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    assert isolation._process_limit([], limits) == 16
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    assert isolation._process_limit(["--unshare-user"], limits) == 16
    assert isolation._process_limit([], limits) == 1000 + 48
    monkeypatch.undo()
    monkeypatch.setattr(isolation, "tasks_of_uid", lambda *args: None)
    assert isolation.shared_process_limit(48) == -1
    assert repr(limits) == repr(runner.Limits(processes=16))  # not in a fingerprint


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="needs Linux's /proc")
def test_the_uid_s_tasks_are_counted_with_their_threads_and_without_the_sandboxes():
    """What RLIMIT_NPROC counts: every thread of every process of the real uid; a sandbox's
    processes (a worker and what it started) are left out of what the user runs besides."""
    script = ("import os, sys, threading, time\n"
              "for _ in range(3): threading.Thread(target=time.sleep, args=(60,), daemon=True)"
              ".start()\n"
              "child = os.fork()\n"
              "if child == 0: time.sleep(60); os._exit(0)\n"
              "print('ready', flush=True); sys.stdin.read(); os.kill(child, 9)\n")
    worker = subprocess.Popen([sys.executable, "-c", script], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        assert worker.stdout is not None and worker.stdout.readline() == "ready\n"
        differences = []
        for _ in range(20):  # other processes of the uid (other tests') may start or end between
            with_it = processes.tasks_of_uid(os.getuid())
            without = processes.tasks_of_uid(os.getuid(), frozenset({worker.pid}))
            assert with_it is not None and without is not None
            differences.append(with_it - without)
            if differences[-1] == 4 + 1:  # the worker's four threads, its child's one
                break
        assert differences[-1] == 4 + 1, differences
    finally:
        worker.communicate("")


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="needs Linux's /proc")
def test_a_sandbox_whose_share_another_fills_is_crowded_and_the_one_that_fills_it_is_not():
    """Where every sandbox's processes count against the grader's uid, a look at the uid's
    tasks that finds them (nearly) at a sandbox's limit marks that sandbox crowded out, unless
    it holds more than its own process limit itself (it filled the share); far below the
    limit, none is. The look also comes by itself while two sandboxes are watched."""
    script = ("import sys, threading\n"
              "for _ in range(int(sys.argv[1])): threading.Thread(target=sys.stdin.read, "
              "daemon=True).start()\n"
              "print('ready', flush=True); threading.Event().wait()\n")
    holder, neighbour = (subprocess.Popen([sys.executable, "-c", script, str(threads)],
                                          stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                          text=True) for threads in (70, 0))
    try:
        for started in (holder, neighbour):
            assert started.stdout is not None and started.stdout.readline() == "ready\n"
        # Far below or far above what the uid holds, whatever other tests start or end meanwhile.
        for limit, crowded in ((10**9, False), (-(10**9), True)):
            for started in (holder, neighbour):
                processes.watch(started.pid, limit, 64)
            processes.sample_share()
            held, crowded_out = processes.unwatch(holder.pid), processes.unwatch(neighbour.pid)
            assert (held.crowded, held.pressed) == (False, False)
            assert (crowded_out.crowded, crowded_out.pressed) == (crowded, crowded)
        for started in (holder, neighbour):
            processes.watch(started.pid, -(10**9), 64)
        try:
            for _ in range(600):  # the sampler's own look (this only stops a hang)
                with processes._watched_lock:
                    if processes._watched[neighbour.pid].crowded:
                        break
                threading.Event().wait(0.1)
        finally:
            assert processes.unwatch(holder.pid).crowded is False
            assert processes.unwatch(neighbour.pid).crowded is True
    finally:
        for started in (holder, neighbour):
            started.kill()
            started.communicate()


def test_a_report_that_a_thread_could_not_start_buys_a_second_grading_only_under_pressure():
    """A notebook without full marks whose results say a thread could not start is graded
    again alone only when the grader saw classmates hold most of the share it draws on: alone,
    saying it would make its score the better of two gradings in that mode."""
    failed = {"raised": "RuntimeError", "mro": ["RuntimeError", "Exception"],
              "message": "can't start new thread"}
    said = runner.RunResult(events=[{"event": "cell", "label": "x", "error": failed}])
    assert grading._crowded_out(said) == ""
    said.pressed = True
    assert grading._crowded_out(said) == grading.COULD_NOT_START
    quiet = runner.RunResult(events=[], pressed=True)
    assert grading._crowded_out(quiet) == ""
    quiet.crowded = True
    assert grading._crowded_out(quiet) == grading.CROWDED


def test_a_thread_or_fork_that_could_not_start_is_told_from_the_notebook_s_results():
    """What the grader reads as a sign that a thread or process could not be started: a cell or
    a hidden test that raised RuntimeError("can't start new thread") or a fork's EAGAIN
    (BlockingIOError), and nothing else (other errors, malformed events)."""
    def raised(kind: str, mro: list, message: str) -> dict:
        return {"raised": kind, "mro": mro, "message": message}

    thread = raised("RuntimeError", ["RuntimeError", "Exception"], "can't start new thread")
    fork = raised("BlockingIOError", ["BlockingIOError", "OSError"],
                  "[Errno 11] Resource temporarily unavailable")
    assert scoring.could_not_start([{"event": "cell", "label": "x", "error": thread}])
    assert scoring.could_not_start([{"event": "case", "id": "c", "outcome": fork}])
    assert not scoring.could_not_start([
        {"event": "cell", "error": raised("RuntimeError", ["RuntimeError"], "other")},
        {"event": "case", "outcome": raised("BlockingIOError", ["BlockingIOError"],
                                            "[Errno 115] Operation now in progress")},
        {"event": "case", "outcome": raised("ValueError", ["ValueError"],
                                            "can't start new thread")},
        {"event": "case", "outcome": {**thread, "more": 1}},
        {"event": "case", "outcome": {"raised": 1, "mro": "RuntimeError",
                                      "message": "can't start new thread"}},
        {"event": "flag", "error": thread}, {"event": "forged", "outcome": fork},
        {"event": "case", "outcome": {"value": 1}},
        {"event": "done"}])


def test_the_batch_summary_says_one_notebook_and_one_student_in_the_singular(tmp_path):
    from autograder import batch

    one = batch.Summary(graded=1, failed=1, graded_again=["ann/schedules/01"],
                        flagged=[("ann", "schedules", "01", "notebook code tried to x")],
                        seconds=1.0).line(tmp_path)
    assert "graded 1 notebook, " in one and "failed on 1 notebook (" in one, one
    assert "graded 1 notebook again alone" in one and "tampering noticed for 1 student (" in one
    many = batch.Summary(graded=1603, failed=2, seconds=1.0).line(tmp_path)
    assert "graded 1,603 notebooks, " in many and "failed on 2 notebooks (" in many, many
    assert batch.counted(1, "more student") == "1 more student"


def test_only_the_course_s_own_skipped_names_are_named_when_a_name_is_not_defined():
    """A NameError names what the student wrote, or what notebook code claims: the grader adds
    its hint only for a name that a cell it skips binds in the instructor's own notebook, and
    shows that name, never the message."""
    exercise = exercise_for("03_next_run")
    ids = [case["id"] for case in suite.exercise_cases(exercise)]

    def problems(*names: str) -> list[str]:
        events = [{"event": "case", "id": ident, "outcome": {
            "raised": "NameError", "mro": ["NameError", "Exception", "BaseException", "object"],
            "message": f"name '{name}' is not defined"}}
            for ident, name in zip(ids[:len(names)], names, strict=True)]
        run = runner.RunResult(events=[*events, {"event": "done"}], returncode=0)
        return scoring.score_run(exercise, run, runner.Limits(), "x.ipynb").problems

    assert problems("field_ranges", "field_ranges") == [scoring.skipped_names_problem(
        ["field_ranges"])]
    assert "'field_ranges', 'never'" in problems("never", "field_ranges")[0]
    # a name the answer cells bind, one nobody binds, one the setup cell binds: no hint
    assert problems("parse_cron_field", "secret_answers", "datetime") == []
    assert problems("field_ranges\\n# forged") == []


def test_scoring_a_run_without_a_name_error_parses_no_notebook(monkeypatch):
    """The names only skipped cells bind come from parsing the instructor's whole notebook:
    a run that met no NameError (nearly every run) is scored without them, to the same
    result."""
    exercise = exercise_for("03_next_run")
    ids = [case["id"] for case in suite.exercise_cases(exercise)]
    events = [{"event": "case", "id": ids[0], "outcome": {
        "raised": "ValueError", "mro": ["ValueError", "Exception", "BaseException", "object"],
        "message": "name 'field_ranges' is not defined"}},
        {"event": "cell", "label": "answer cell 1", "error": {"raised": "KeyError"}},
        {"event": "done"}]
    run = runner.RunResult(events=events, returncode=0)
    expected = scoring.score_run(exercise, run, runner.Limits(), "x.ipynb")
    asked: list = []
    monkeypatch.setattr(scoring, "names_grading_skips", lambda exercise: asked.append(exercise)
                        or frozenset({"field_ranges"}))
    assert scoring.score_run(exercise, run, runner.Limits(), "x.ipynb") == expected
    assert asked == []


@pytest.mark.fast
@pytest.mark.parametrize(("name", "shown"), [
    ("ada", "'ada'"),
    ("o'neil", "\"o'neil\""),
    ("ada\u2800", "'ada\\u2800' (ada\\u2800)"),  # the terminal's escape, not escaped again
    ("ada\\u2800", "'ada\\u2800' (ada\\\\u2800)"),  # a backslash typed in the name
    ("Jos\u00e9", "'Jos\u00e9' (Jos\\u00e9)"),
])
def test_a_name_in_a_message_is_quoted_once_with_its_code_points_when_they_differ(name, shown):
    """`escape.unmistakable`: the name as the terminal shows it, in quotes, and its code
    points where those tell apart names the terminal shows alike. The quoted part is the
    terminal's own escape (a backslash once), so an instructor can compare it with what the
    terminal shows elsewhere; the code points double a backslash that the name holds."""
    assert escape.unmistakable(name) == shown
