"""Notebook 01 (parse_cron_field): hidden suite, wrong-solution corpus, two oracles (croniter's
expansion and a brute-force reading of the exercise's rules), hypothesis for valid and bad
fields."""

import random
from pathlib import Path

import fixtures
import nbformat
import pytest
from croniter import croniter
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from autograder import reference
from autograder.reference import SOLUTIONS, nbgrader_meta
from autograder.rubric import exercise_for

EXERCISE = exercise_for("01_parse_cron_field")
CORPUS = Path(__file__).parent / "corpus" / "wrong" / "01_parse_cron_field"
ENTRIES = fixtures.read_corpus(CORPUS)
# minute, hour, day-of-month, month, day-of-week: the five positions of a cron expression
FIELD_RANGES = [(0, 59), (0, 23), (1, 31), (1, 12), (0, 7)]
DAY_OF_WEEK = 4

# The classic bugs the notebook warns about; each must keep a wrong solution in the corpus.
EXPECTED_BUGS = {
    "step_from_zero", "exclusive_range_end", "empty_item_skipped", "out_of_range_accepted",
    "range_end_unchecked", "a_slash_n_start_unchecked", "reversed_range_empty",
    "reversed_range_swapped", "step_zero_as_one",
    "step_zero_division_error", "empty_step_as_one", "int_accepts_signs_and_spaces",
    "non_ascii_digits_accepted", "wrong_exception_type", "a_slash_n_as_a", "duplicates_kept",
    "unsorted_output", "star_step_from_zero", "list_split_on_comma_space",
    "step_larger_than_range_rejected", "star_from_zero", "star_leaves_out_the_highest",
    "lowest_value_rejected", "highest_value_rejected", "star_step_starts_at_the_step",
    "lone_value_read_as_every_n",
}


@pytest.fixture(scope="module")
def reference_points():
    return fixtures.score_in_process(fixtures.honest_submission(EXERCISE), EXERCISE)


@pytest.fixture(scope="module")
def parse_cron_field():
    return reference.namespace(EXERCISE)["parse_cron_field"]


def _score(answer: str) -> float:
    answers = fixtures.reference_answers(EXERCISE) | {"answer_parse_cron_field": answer}
    notebook = fixtures.build_submission(EXERCISE, answers)
    return fixtures.score_in_process(notebook, EXERCISE)["test_parse_cron_field"]


@pytest.mark.parametrize("body", [
    "return []",
    "raise ValueError(f'bad field {field!r}')",
    "return list(range(low, high + 1))",
], ids=["always []", "always ValueError", "always every value"])
def test_a_constant_answer_earns_almost_nothing(body):
    assert _score(f"def parse_cron_field(field, low, high):\n    {body}") <= 3


def test_a_rejection_that_does_not_name_the_bad_value_loses_that_case(reference_points):
    answer = fixtures.reference_answers(EXERCISE)["answer_parse_cron_field"].replace(
        'f"{value} in {item!r} is outside {low}-{high}"', '"a value is out of range"')
    assert "a value is out of range" in answer
    assert 24 < _score(answer) < reference_points["test_parse_cron_field"]


def test_the_corpus_keeps_one_wrong_solution_per_classic_bug():
    assert {entry.name for entry in ENTRIES} == EXPECTED_BUGS


# --- an oracle of our own: the exercise's words, value by value ----------------------------

def _item_selects(item: str, value: int, low: int, high: int) -> bool:
    """Whether one (valid) item selects `value`, read straight from the exercise section: `*` is
    low..high, `a` is a, `a-b` is a..b, `a/n` runs from a to high; a step n keeps every n-th
    value counting from the start."""
    base, slash, step = item.partition("/")
    if base == "*":
        start, end = low, high
    elif "-" in base:
        start, end = (int(part) for part in base.split("-"))
    else:
        start = int(base)
        end = high if slash else start
    return start <= value <= end and (value - start) % int(step or 1) == 0


def brute_force(field: str, low: int, high: int) -> list[int]:
    """Every value of low..high that some item of the field selects, in order."""
    return [value for value in range(low, high + 1)
            if any(_item_selects(item, value, low, high) for item in field.split(","))]


# --- croniter as the second oracle ----------------------------------------------------------

def _croniter_item(item: str, position: int) -> str:
    """The same item in croniter's words. croniter 7.0 differs from the lab (and Vixie cron) in
    two places: a one-value range (`6-6`, `6-6/4`) reads as something else (`*`, or a step over
    the whole field), so it is spelled as the single value; and a day-of-week `a/n` stops at 6
    instead of 7, so it is spelled `a-7/n` (just `7` when a is 7)."""
    base, slash, step = item.partition("/")
    start, dash, end = base.partition("-")
    if dash and start == end:
        return start
    if position == DAY_OF_WEEK and slash and base.isdigit():
        return "7" if int(base) == 7 else f"{base}-7/{step}"
    return item


def croniter_values(field: str, position: int) -> set[int]:
    """What croniter expands `field` to when it stands at `position` of an expression."""
    low, high = FIELD_RANGES[position]
    fields = ["*"] * 5
    fields[position] = ",".join(_croniter_item(item, position) for item in field.split(","))
    expanded = croniter.expand(" ".join(fields))[0][position]
    values = set(range(low, high + 1)) if "*" in expanded else set(expanded)
    # croniter counts day-of-week 7 as Sunday (0): compare days, not spellings
    return {v % 7 for v in values} if position == DAY_OF_WEEK else values


def _number(rng: random.Random, low: int, high: int) -> str:
    value = rng.randint(low, high)
    return f"0{value}" if rng.random() < 0.05 else str(value)  # a leading zero is still a number


def _random_item(rng: random.Random, low: int, high: int) -> str:
    a = rng.randint(low, high)
    b = rng.randint(a, high)
    step = rng.randint(1, high - low + 2)
    return rng.choice(["*", _number(rng, low, high), f"{a}-{b}", f"*/{step}", f"{a}-{b}/{step}",
                       f"{a}/{step}", f"{a}/{rng.randint(1, 4)}", f"*/{rng.randint(1, 4)}"])


def _random_field(rng: random.Random, low: int, high: int) -> str:
    return ",".join(_random_item(rng, low, high) for _ in range(rng.choice([1, 1, 2, 3, 4])))


def test_the_reference_agrees_with_croniter_and_the_brute_force_oracle(parse_cron_field):
    rng = random.Random(20260301)
    by_position = [0] * 5
    for _ in range(4000):
        position = rng.randrange(5)
        low, high = FIELD_RANGES[position]
        field = _random_field(rng, low, high)
        got = parse_cron_field(field, low, high)
        assert got == brute_force(field, low, high), f"parse_cron_field({field!r}, {low}, {high})"
        spelled = {v % 7 for v in got} if position == DAY_OF_WEEK else set(got)
        assert spelled == croniter_values(field, position), (
            f"parse_cron_field({field!r}, {low}, {high}) = {got}, croniter disagrees")
        by_position[position] += 1
    assert min(by_position) > 600


def test_the_croniter_translation_only_touches_the_known_differences():
    assert croniter_values("3-20/5", 0) == {3, 8, 13, 18}
    assert croniter_values("6-6", 1) == {6}
    assert croniter_values("5/2", DAY_OF_WEEK) == {5, 0}  # 5 and 7 (Sunday)
    assert croniter_values("7/3", DAY_OF_WEEK) == {0}


# --- hypothesis: generated valid fields ------------------------------------------------------

RANGES = st.one_of(st.sampled_from(FIELD_RANGES),
                   st.tuples(st.integers(0, 10), st.integers(0, 40)).map(
                       lambda pair: (pair[0], pair[0] + pair[1])))


@st.composite
def valid_items(draw, low: int, high: int) -> list[str]:
    value = st.integers(low, high)
    step = st.integers(1, high - low + 3).map(str)

    def number(v: int) -> str:
        return draw(st.sampled_from([str(v), str(v), f"0{v}"]))  # a leading zero is fine

    items = []
    for _ in range(draw(st.integers(1, 5))):
        a = draw(value)
        b = draw(st.integers(a, high))
        items.append(draw(st.sampled_from([
            "*", number(a), f"{number(a)}-{number(b)}", f"*/{draw(step)}",
            f"{number(a)}-{number(b)}/{draw(step)}", f"{number(a)}/{draw(step)}"])))
    return items


@st.composite
def valid_fields(draw) -> tuple[str, int, int]:
    low, high = draw(RANGES)
    return ",".join(draw(valid_items(low, high))), low, high


@settings(derandomize=True, max_examples=1500, deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(valid_fields())
def test_generated_valid_fields_select_what_the_exercise_says(parse_cron_field, generated):
    field, low, high = generated
    got = parse_cron_field(field, low, high)
    assert got == brute_force(field, low, high)
    assert got == sorted(set(got)) and all(low <= v <= high for v in got)


# --- hypothesis: generated bad fields -------------------------------------------------------

NOT_NUMBERS = ["x", "1.5", "-3", "+5", " 5", "5 ", "1_0", "0x1", "5a", "**", "*-5", "5-*",
               "-", "1-2-3", "\u0663", "\u0969", "\uff15", "\U0001d7d3", "\u00b2", "5\u00b2"]
NOT_STEPS = ["0", "00", "", "x", "1.5", "-1", "+2", " 2", "\u0663", "2/3"]


@st.composite
def bad_items(draw, low: int, high: int) -> str:
    inside = st.integers(low, high)
    outside = st.one_of(st.integers(high + 1, high + 100),
                        st.integers(0, low - 1) if low > 0 else st.integers(high + 1, 999))
    kind = draw(st.sampled_from(["out of range", "reversed", "bad step", "no base",
                                 "not a number"]))
    if kind == "out of range":
        bad, good = draw(outside), draw(inside)
        return draw(st.sampled_from([
            f"{bad}", f"{bad}-{max(bad, high)}", f"{min(bad, low)}-{bad}", f"{good}-{bad}",
            f"{bad}/2", f"{bad}-{bad}/3"]))
    if kind == "reversed" and high > low:
        a = draw(st.integers(low + 1, high))
        b = draw(st.integers(low, a - 1))
        return draw(st.sampled_from([f"{a}-{b}", f"{a}-{b}/2"]))
    if kind == "bad step":
        base = draw(st.sampled_from(["*", f"{low}-{high}", f"{low}"]))
        return f"{base}/{draw(st.sampled_from(NOT_STEPS))}"
    if kind == "no base":
        return f"/{draw(st.integers(1, 9))}"
    text = draw(st.sampled_from(NOT_NUMBERS))
    return draw(st.sampled_from([text, f"{text}-{high}", f"{low}-{text}", f"{text}/2"]))


@st.composite
def bad_fields(draw) -> tuple[str, int, int]:
    low, high = draw(RANGES)
    items = draw(valid_items(low, high)) if draw(st.booleans()) else []
    if draw(st.integers(0, 4)) == 0:
        items.insert(draw(st.integers(0, len(items))), "")  # an empty item (or field)
    else:
        items.insert(draw(st.integers(0, len(items))), draw(bad_items(low, high)))
    return ",".join(items), low, high


@settings(derandomize=True, max_examples=1500, deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(bad_fields())
def test_generated_bad_fields_raise_value_error(parse_cron_field, generated):
    field, low, high = generated
    with pytest.raises(ValueError):
        parse_cron_field(field, low, high)


# --- the notebook's figures ----------------------------------------------------------------

def test_the_worked_example_agrees_with_the_reference(parse_cron_field):
    notebook = nbformat.read(SOLUTIONS / EXERCISE.path, as_version=4)
    worked = next(c for c in notebook.cells
                  if c.cell_type == "code" and "examples = {" in c.source
                  and not nbgrader_meta(c).get("solution"))
    names: dict = {}
    exec(worked.source, names)
    examples, low, high = names["examples"], names["low"], names["high"]
    assert len(examples) >= 6
    for field, values in examples.items():
        assert values == parse_cron_field(field, low, high), field
    assert examples["3-20/5"] == [3, 8, 13, 18] and examples["50/4"] == [50, 54, 58]
