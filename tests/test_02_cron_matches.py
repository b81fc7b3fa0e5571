"""Notebook 02 (cron_matches): hidden suite, wrong-solution corpus, croniter as the oracle."""

import random
from datetime import datetime, timedelta
from pathlib import Path

import fixtures
import nbformat
import pytest
from croniter import croniter

from autograder import reference
from autograder.reference import SOLUTIONS, is_answer_cell, is_setup_cell, nbgrader_meta
from autograder.rubric import exercise_for

EXERCISE = exercise_for("02_cron_matches")
CORPUS = Path(__file__).parent / "corpus" / "wrong" / "02_cron_matches"
ENTRIES = fixtures.read_corpus(CORPUS)
FIELD_RANGES = [(0, 59), (0, 23), (1, 31), (1, 12), (0, 7)]

# The classic bugs the notebook warns about; each must keep a wrong solution in the corpus.
EXPECTED_BUGS = {
    "weekday_from_monday", "isoweekday_without_mod", "minute_hour_swapped",
    "cron_either_day_rule", "day_fields_always_or", "seconds_not_ignored", "seven_rejected",
    "seven_not_sunday", "four_fields_accepted", "six_fields_accepted", "bad_field_returns_false",
    "day_of_month_from_zero", "month_zero_based", "split_on_single_space", "lazy_validation",
    "reads_when_in_utc",
}


@pytest.fixture(scope="module")
def cron_matches():
    return reference.namespace(EXERCISE)["cron_matches"]


@pytest.mark.parametrize("answer", [
    "def cron_matches(expression, when):\n    return True",
    "def cron_matches(expression, when):\n    return False",
    "def cron_matches(expression, when):\n    raise ValueError('no')",
], ids=["always True", "always False", "always ValueError"])
def test_a_constant_answer_earns_almost_nothing(answer):
    answers = fixtures.reference_answers(EXERCISE) | {"answer_cron_matches": answer}
    points = fixtures.score_in_process(fixtures.build_submission(EXERCISE, answers), EXERCISE)
    assert points["test_cron_matches"] <= 0.5


def test_the_corpus_keeps_one_wrong_solution_per_classic_bug():
    assert {entry.name for entry in ENTRIES} == EXPECTED_BUGS


def _function_source(exercise_name: str, grade_id: str) -> str:
    notebook = reference.source_notebook(exercise_for(exercise_name))
    source = next(c.source for c in notebook.cells if nbgrader_meta(c).get("grade_id") == grade_id)
    return source[source.index("def "):]


def test_the_parse_cron_field_reference_is_notebook_01s():
    assert (_function_source("02_cron_matches", "answer_parse_cron_field")
            == _function_source("01_parse_cron_field", "answer_parse_cron_field"))


def test_nothing_before_the_exercise_calls_a_graded_function():
    cells = nbformat.read(SOLUTIONS / EXERCISE.path, as_version=4).cells
    first_answer = next(i for i, c in enumerate(cells) if is_answer_cell(c))
    for cell in cells[:first_answer]:
        if cell.cell_type == "code":
            assert "cron_matches(" not in cell.source
            assert "parse_cron_field(" not in cell.source
    for cell in cells:
        if is_setup_cell(cell):
            assert "croniter" not in cell.source and "matplotlib" not in cell.source


# --- croniter as the oracle -------------------------------------------------------------------

def _item(rng: random.Random, low: int, high: int) -> str:
    a = rng.randint(low, high - 1)
    b = rng.randint(a + 1, high)  # croniter reads a one-value range with a step (8-8/9) as */9
    step = rng.randint(1, max(1, (high - low) // 2))
    return rng.choice([f"{a}", f"{a}-{b}", f"*/{step}", f"{a}-{b}/{step}", f"{a}/{step}",
                       f"{b}"])


def _field(rng: random.Random, low: int, high: int) -> str:
    roll = rng.random()
    if roll < 0.3:
        return "*"
    if high == 7 and roll < 0.45:  # day-of-week: make sure 7 (Sunday) turns up often
        return rng.choice(["7", "6-7", "0,7", "5-7", "1-7/2", "3/2", "7,1-3"])
    return ",".join(_item(rng, low, high) for _ in range(rng.choice([1, 1, 2, 3])))


def _expression(rng: random.Random) -> str:
    return " ".join(_field(rng, low, high) for low, high in FIELD_RANGES)


def _selected(field: str, low: int, high: int) -> set[int]:
    """What a field selects, spelled out independently of the notebook (for picking moments)."""
    values: set[int] = set()
    for item in field.split(","):
        base, _, step = item.partition("/")
        start, _, end = base.partition("-")
        first = low if base == "*" else int(start)
        last = high if base == "*" or (step and not end) else int(end or start)
        values.update(range(first, last + 1, int(step or 1)))
    return values


def _moment(rng: random.Random, expression: str) -> datetime:
    """A moment that often matches (each field aimed at with some probability)."""
    fields = expression.split()
    day = datetime(2024, 1, 1) + timedelta(days=rng.randrange(5 * 365))
    if rng.random() < 0.7:  # walk to a day that both day fields and the month select
        days, months = _selected(fields[2], 1, 31), _selected(fields[3], 1, 12)
        weekdays = {v % 7 for v in _selected(fields[4], 0, 7)}
        for _ in range(800):
            if day.day in days and day.month in months and day.isoweekday() % 7 in weekdays:
                break
            day += timedelta(days=1)
    minutes, hours = sorted(_selected(fields[0], 0, 59)), sorted(_selected(fields[1], 0, 23))
    minute = rng.choice(minutes) if rng.random() < 0.8 else rng.randrange(60)
    hour = rng.choice(hours) if rng.random() < 0.8 else rng.randrange(24)
    return day.replace(hour=hour, minute=minute, second=rng.choice([0, 0, 1, 30, 59]),
                       microsecond=rng.choice([0, 0, 1, 999999]))


def _croniter_dialect(expression: str) -> str:
    """The same schedule in croniter's words: croniter runs a day-of-week `a/n` only up to 6,
    the lab (like Vixie cron) up to 7, so `a/n` is spelled `a-7/n` for it."""
    fields = expression.split()
    fields[4] = ",".join(f"{base}-7/{step}" if step and base.isdigit() else item
                         for item in fields[4].split(",")
                         for base, _, step in [item.partition("/")])
    return " ".join(fields)


def test_the_reference_agrees_with_croniter_day_or_false(cron_matches):
    rng = random.Random(20260313)
    checked = matched = sevens = 0
    for _ in range(4000):
        expression = _expression(rng)
        when = _moment(rng, expression)
        expected = croniter.match(_croniter_dialect(expression),
                                  when.replace(second=0, microsecond=0), day_or=False)
        got = cron_matches(expression, when)
        assert got is expected, f"cron_matches({expression!r}, {when!r}): croniter says {expected}"
        checked += 1
        matched += got
        sevens += "7" in expression.split()[4]
    assert matched > checked // 5, "the generator should produce plenty of matching moments"
    assert sevens > checked // 10, "day-of-week 7 should turn up often"


def test_out_of_range_fields_are_rejected_like_croniter_rejects_them(cron_matches):
    rng = random.Random(7)
    when = datetime(2026, 3, 13, 9, 0)
    for _ in range(300):
        fields = ["*"] * 5
        position = rng.randrange(5)
        low, high = FIELD_RANGES[position]
        fields[position] = str(rng.choice([low - 1, high + 1])) if low else str(high + 1)
        expression = " ".join(fields)
        with pytest.raises(ValueError):
            croniter(expression)
        with pytest.raises(ValueError):
            cron_matches(expression, when)


# --- the notebook's figures ----------------------------------------------------------------

def _cell(notebook, grade_id):
    return next(c for c in notebook.cells if nbgrader_meta(c).get("grade_id") == grade_id)


def test_the_either_day_figure_reports_what_croniter_and_the_reference_say(cron_matches):
    days = [datetime(2026, 1, 1, 9, 0) + timedelta(days=d) for d in range(365)]
    both = sum(cron_matches("0 9 13 * 5", day) for day in days)
    either = sum(croniter.match("0 9 13 * 5", day, day_or=True) for day in days)
    assert (both, either) == (3, 61)
    notebook = nbformat.read(SOLUTIONS / EXERCISE.path, as_version=4)
    printed = "".join(output.get("text", "") for cell in notebook.cells if cell.cell_type == "code"
                      for output in cell.get("outputs", []))
    assert f"{both} days under the lab's both rule, {either} days under cron's" in printed


def test_the_worked_example_week_agrees_with_the_reference(cron_matches):
    notebook = nbformat.read(SOLUTIONS / EXERCISE.path, as_version=4)
    names: dict = {}
    for grade_id in ("setup", "setup_example_helpers", "code_desk_week"):
        exec(_cell(notebook, grade_id).source, names)
    expressions = [expression for expression, _ in names["DESK_JOBS"].values()]
    by_reference = names["week_grid"](
        lambda moment: sum(cron_matches(e, moment) for e in expressions), names["WEEK"])
    assert names["desk_week"] == by_reference
    assert by_reference[6][3] == 1, "the weekend archive ('6-7') runs on Sunday at 03:00"
