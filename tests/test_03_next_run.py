"""Notebook 03 (next_run_minute and next_run): hidden suites, corpora, croniter as the oracle."""

from __future__ import annotations

import csv
import random
from datetime import date, datetime, timedelta, timezone
from pathlib import Path
from zoneinfo import ZoneInfo

import fixtures
import nbformat
import pytest
from croniter import CroniterBadDateError, croniter

from autograder import reference
from autograder.reference import SOLUTIONS, is_answer_cell, is_setup_cell, nbgrader_meta
from autograder.rubric import exercise_for

EXERCISE = exercise_for("03_next_run")
CORPUS = Path(__file__).parent / "corpus"
WRONG = fixtures.read_corpus(CORPUS / "wrong" / "03_next_run")
DATA = SOLUTIONS.parent / "data"
FIELD_RANGES = [(0, 59), (0, 23), (1, 31), (1, 12), (0, 7)]

# The bugs the notebook warns about; each keeps one wrong solution in the corpus.
EXPECTED_BUGS = {
    "minute_not_strictly_after", "minute_keeps_seconds", "minute_sets_swapped",
    "minute_none_as_zero", "minute_same_day_only",
    "not_strictly_after", "keeps_seconds", "drops_tzinfo", "loops_forever",
    "gives_up_after_one_year", "five_years_by_replace", "minute_hour_swapped", "python_weekday",
    "seven_not_sunday", "either_day_rule", "day_skip_breaks_at_month_end", "no_year_rollover",
    "no_leap_years", "searches_in_utc", "four_fields_accepted", "bad_field_read_as_every_value",
}


@pytest.fixture(scope="module")
def names() -> dict:
    return reference.namespace(EXERCISE)


# --- the hidden suites on known submissions ------------------------------------------------

def test_the_corpus_keeps_one_wrong_solution_per_classic_bug():
    assert {entry.name for entry in WRONG} == EXPECTED_BUGS


# --- the reference answers are notebook 01's and 02's --------------------------------------

def _function_source(notebook_name: str, grade_id: str) -> str:
    notebook = reference.source_notebook(exercise_for(notebook_name))
    source = next(c.source for c in notebook.cells if nbgrader_meta(c).get("grade_id") == grade_id)
    return source[source.index("def "):]  # without the "paste yours here" comment


@pytest.mark.parametrize("grade_id, owners", [
    ("answer_parse_cron_field", ["01_parse_cron_field", "02_cron_matches"]),
    ("answer_cron_matches", ["02_cron_matches"]),
])
def test_the_helper_answers_are_the_earlier_notebooks_references(grade_id, owners):
    for owner in owners:
        assert _function_source("03_next_run", grade_id) == _function_source(owner, grade_id), (
            f"{grade_id} in 03 differs from {owner}: copy the reference again")


def test_no_cell_outside_an_answer_defines_a_graded_function():
    cells = nbformat.read(SOLUTIONS / EXERCISE.path, as_version=4).cells
    for cell in cells:
        if cell.cell_type != "code" or is_answer_cell(cell):
            continue
        for name in ("next_run", "next_run_minute", "parse_cron_field", "cron_matches"):
            assert f"def {name}(" not in cell.source
        if is_setup_cell(cell):
            assert "import matplotlib" not in cell.source and "croniter" not in cell.source


# --- oracles --------------------------------------------------------------------------------

def _random_field(rng: random.Random, low: int, high: int) -> str:
    def item() -> str:
        # croniter misreads one-value ranges such as 6-6, so every range here has two ends
        a = rng.randint(low, high - 1)
        b = rng.randint(a + 1, min(high, a + rng.choice([1, 3, 10, high])))
        n = rng.choice([2, 3, 5, 7, 15])
        forms = [f"{a}", f"{a}-{b}", f"*/{n}", f"{a}-{b}/{n}", f"{a}/{n}"]
        # croniter ends a/n on day-of-week at 6; the exercise runs it to 7 (Sunday)
        return rng.choice(forms[:-1] if high == 7 else forms)

    if rng.random() < 0.4:
        return "*"
    return ",".join(item() for _ in range(rng.choice([1, 1, 2])))


def _random_moment(rng: random.Random) -> datetime:
    moment = datetime(2023, 1, 1) + timedelta(minutes=rng.randrange(6 * 365 * 24 * 60))
    if rng.random() < 0.5:
        moment = moment.replace(second=rng.randrange(60), microsecond=rng.choice([0, 1, 999999]))
    return moment


def _outcome(function, *args):
    try:
        return function(*args)
    except ValueError:
        return "ValueError"


def test_next_run_agrees_with_croniter_day_or_false(names):
    next_run = names["next_run"]
    rng = random.Random(20250704)
    compared = raised = exact_matches = 0
    rare = ["0 0 30 2 *", "0 12 31 4,6,9,11 *", "0 0 29 2 1", "30 9 29 2 1-5", "0 0 31 12 1",
            "15 6 29 2 *", "0 0 13 * 5", "0 0 31 2-4 0"]
    for index in range(3000):
        expression = " ".join(_random_field(rng, low, high) for low, high in FIELD_RANGES)
        if index % 25 == 0:  # now and then a schedule that fires rarely or never
            expression = rare[index // 25 % len(rare)]
        after = _random_moment(rng)
        if index % 4 == 0:  # often start exactly on a run, to check "strictly after"
            try:
                after = croniter(expression, after, day_or=False).get_next(datetime)
                exact_matches += 1
            except CroniterBadDateError:
                pass
        try:
            expected = croniter(expression, after, day_or=False).get_next(datetime)
        except CroniterBadDateError:
            expected = None
        got = _outcome(next_run, expression, after)
        if expected is not None and expected - after <= timedelta(days=5 * 365):
            assert got == expected, f"next_run({expression!r}, {after!r}): croniter {expected}"
            compared += 1
        elif expected is None or expected - after > timedelta(days=5 * 366):
            assert got == "ValueError", f"next_run({expression!r}, {after!r}) gave {got}"
            raised += 1
    assert compared > 2500 and raised > 30 and exact_matches > 500


def test_next_run_reads_an_aware_moment_on_its_own_clock(names):
    next_run = names["next_run"]
    rng = random.Random(3)
    zones = [timezone.utc, timezone(timedelta(hours=-5)), timezone(timedelta(hours=5, minutes=30)),
             ZoneInfo("Europe/London"), ZoneInfo("Asia/Tokyo")]
    for _ in range(500):
        expression = " ".join(_random_field(rng, low, high) for low, high in FIELD_RANGES)
        after, zone = _random_moment(rng), rng.choice(zones)
        naive = _outcome(next_run, expression, after)
        aware = _outcome(next_run, expression, after.replace(tzinfo=zone))
        if naive == "ValueError":
            assert aware == "ValueError"
        else:
            assert aware.tzinfo is zone and aware.replace(tzinfo=None) == naive


def _next_run_minute_oracle(minutes, hours, after):
    """The earliest (hour, minute) of today or tomorrow that comes after `after`."""
    for offset in (0, 1):
        day = datetime.combine(after.date() + timedelta(days=offset), datetime.min.time(),
                               after.tzinfo)
        for hour in sorted(range(24) if hours is None else hours):
            for minute in sorted(range(60) if minutes is None else minutes):
                if day.replace(hour=hour, minute=minute) > after:
                    return day.replace(hour=hour, minute=minute)
    raise AssertionError("every (hour, minute) comes round within a day")


def test_next_run_minute_agrees_with_a_brute_force_oracle(names):
    next_run_minute = names["next_run_minute"]
    rng = random.Random(10)

    def some(high: int):
        if rng.random() < 0.3:
            return None
        return set(rng.sample(range(high + 1), rng.choice([1, 1, 2, 5, 20])))

    for _ in range(2000):
        minutes, hours = some(59), some(23)
        after = _random_moment(rng)
        if rng.random() < 0.3 and minutes and hours:  # exactly on a matching minute
            after = after.replace(hour=min(hours), minute=min(minutes), second=0, microsecond=0)
        expected = _next_run_minute_oracle(minutes, hours, after)
        assert next_run_minute(minutes, hours, after) == expected, (minutes, hours, after)


# --- the notebook's figures and data --------------------------------------------------------

def _cell_defining(notebook, name: str):
    return next(c for c in notebook.cells if c.cell_type == "code" and f"def {name}(" in c.source)


def test_the_week_timeline_draws_what_croniter_finds(names):
    notebook = nbformat.read(SOLUTIONS / EXERCISE.path, as_version=4)
    figure = dict(names)
    exec("import matplotlib\nmatplotlib.use('Agg')\nimport matplotlib.pyplot as plt\n"
         "import matplotlib.dates as mdates", figure)
    exec(_cell_defining(notebook, "runs_between").source, figure)
    start, end = figure["week_start"], figure["week_end"]
    for expression in figure["desk_jobs"].values():
        runs, moment = [], start - timedelta(minutes=1)
        while (moment := croniter(expression, moment, day_or=False).get_next(datetime)) < end:
            runs.append(moment)
        assert figure["runs_between"](expression, start, end) == runs, expression


def test_the_strictly_after_figure_shows_the_stuck_loop():
    notebook = nbformat.read(SOLUTIONS / EXERCISE.path, as_version=4)
    figure = {"datetime": datetime}
    exec("import matplotlib\nmatplotlib.use('Agg')", figure)
    exec(_cell_defining(notebook, "scheduler_fires").source, figure)
    assert figure["scheduler_fires"](True) == figure["rebalance_times"]
    assert figure["scheduler_fires"](False) == [figure["rebalance_times"][0]] * 5


def test_after_downtime_the_scheduler_loop_runs_every_missed_run_at_once(names, capsys):
    """Going further's catch-up cell: the loop of "Why strictly after matters", restarted on
    Tuesday 11:00 after Friday's rebalance, finds Monday's and Tuesday's 09:30 already past and
    runs both at once (what the catch-up policies below it are about), then sleeps until
    Wednesday; croniter agrees, and the stored output says so."""
    notebook = nbformat.read(SOLUTIONS / EXERCISE.path, as_version=4)
    cell = next(c for c in notebook.cells if nbgrader_meta(c).get("grade_id") == "code_7b3d9e14")
    loop = dict(names)
    exec(cell.source, loop)
    rebalance, back_at = loop["rebalance"], loop["back_at"]
    after, runs = loop["last_run"], []
    while (after := croniter(rebalance, after, day_or=False).get_next(datetime)) <= back_at:
        runs.append(after)
    assert loop["caught_up"] == runs == [datetime(2025, 6, 9, 9, 30), datetime(2025, 6, 10, 9, 30)]
    assert loop["due"] == after == datetime(2025, 6, 11, 9, 30)
    printed = "".join(output.get("text", "") for output in cell.outputs)
    assert printed == capsys.readouterr().out
    assert "2 missed runs start within moments of each other at 11:00" in printed


def test_the_holiday_calendar_is_a_list_of_weekdays():
    with open(DATA / "market_holidays.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    days = [date.fromisoformat(row["date"]) for row in rows]
    assert days == sorted(set(days)) and all(row["name"] for row in rows)
    assert all(day.isoweekday() <= 5 for day in days), "an exchange is closed at weekends anyway"
    assert {day.year for day in days} == {2025, 2026}
    assert date(2025, 12, 25) in days and date(2026, 1, 1) in days


def test_the_trading_calendar_example_skips_christmas_and_new_year():
    notebook = nbformat.read(SOLUTIONS / EXERCISE.path, as_version=4)
    printed = "".join(output.get("text", "") for output in
                      _cell_defining(notebook, "next_trading_run").get("outputs", []))
    assert "skipped Thu 25 Dec 2025 09:30: Christmas Day" in printed
    assert "skipped Thu 01 Jan 2026 09:30: New Year's Day" in printed
    assert "rebalance Fri 02 Jan 2026 09:30" in printed


def test_each_hidden_test_has_the_time_the_notebook_promises(names):
    """The student copy: "each hidden test allows 5 seconds, and 15 seconds when the answer is
    months or years away or there is none". Every next_run case whose answer is more than four
    weeks away, or that raises for finding nothing, allows 15 s; the others allow 5 s."""
    from autograder import suite

    item = next(item for item in EXERCISE.items if item.grade_id == "test_next_run")
    for case in suite.cases_for(item):
        expression, after = case.args
        try:
            answer = names["next_run"](expression, after)
            far = answer - after > timedelta(weeks=4)
        except ValueError:  # nothing within five years, or a bad expression
            fields = expression.split()
            try:
                far = len(fields) == 5 and all(
                    names["parse_cron_field"](field, *limits)
                    for field, limits in zip(fields, FIELD_RANGES, strict=True))
            except ValueError:
                far = False
        assert case.timeout == (15.0 if far else 5.0), (case.name, case.timeout)
