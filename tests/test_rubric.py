"""The rubric in autograder/rubric.py is the only place points are written down."""

import importlib

import nbformat
import pytest

from autograder.reference import SOLUTIONS, nbgrader_meta
from autograder.rubric import EXERCISES, TOTAL_POINTS
from autograder.suite import cases_for

RELEASE = SOLUTIONS.parent / "notebooks"


def grade_cells(path):
    notebook = nbformat.read(path, as_version=4)
    return {nbgrader_meta(c)["grade_id"]: nbgrader_meta(c).get("points")
            for c in notebook.cells if nbgrader_meta(c).get("grade")}


def test_rubric_matches_the_contract_table():
    points = {item.suite: item.points for e in EXERCISES for item in e.items}
    assert points == {
        "parse_cron_field": 25, "cron_matches": 25, "next_run_minute": 10, "next_run": 25,
        "run_order": 25, "backoff_delays": 25, "append_if_new": 25,
        "run_key": 5, "runs_table": 5, "job_flow": 5, "proofs": 5, "scheduling": 5,
    }
    assert TOTAL_POINTS == 185
    assert [e.notebook for e in EXERCISES] == [
        "01_parse_cron_field", "02_cron_matches", "03_next_run", "04_run_order",
        "05_backoff_delays", "06_append_if_new", "07_safe_scheduler"]


@pytest.mark.parametrize("exercise", EXERCISES, ids=lambda e: e.notebook)
@pytest.mark.parametrize("folder", [SOLUTIONS, RELEASE], ids=["solutions", "notebooks"])
def test_grade_cell_points_match_the_rubric(exercise, folder):
    path = folder / exercise.path
    assert path.is_file(), f"{path} is missing"
    expected = {item.grade_id: item.points for item in exercise.items}
    assert grade_cells(path) == expected


@pytest.mark.parametrize("item", [i for e in EXERCISES for i in e.items], ids=lambda i: i.grade_id)
def test_every_graded_item_has_a_weighted_suite(item):
    module = importlib.import_module(f"autograder.suites.{item.suite}")
    cases = cases_for(item)
    assert cases, f"{module.__name__} has no CASES"
    assert all(case.weight > 0 for case in cases)
    names = [case.name for case in cases]
    assert len(names) == len(set(names)), "two hidden tests share a name"
