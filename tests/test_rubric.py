"""The rubric in autograder/rubric.py is the only place points are written down."""

import importlib
import re

import nbformat
import pytest

from autograder.reference import SOLUTIONS, nbgrader_meta
from autograder.rubric import EXERCISES, TOTAL_POINTS
from autograder.suite import cases_for

pytestmark = pytest.mark.fast  # no kernel, no sandbox: `make test-fast`

RELEASE = SOLUTIONS.parent / "notebooks"


def grade_cells(path):
    notebook = nbformat.read(path, as_version=4)
    return {nbgrader_meta(c)["grade_id"]: nbgrader_meta(c).get("points")
            for c in notebook.cells if nbgrader_meta(c).get("grade")}


def test_the_readme_table_says_what_the_rubric_declares():
    """The rubric is the one declaration; the README's table (what students read) follows it."""
    readme = (SOLUTIONS.parent / "README.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| `(\d\d_\w+)` \| `(\w+)` \| .* \| ([\d.]+) \|$", readme, re.M)
    assert [(n, a, float(p)) for n, a, p in rows] == [
        (e.notebook, e.assignment, e.max_score) for e in EXERCISES]
    assert f"The rubric ({TOTAL_POINTS:g} points)" in readme


def test_each_graded_item_is_declared_once():
    items = [item for e in EXERCISES for item in e.items]
    assert len({i.grade_id for i in items}) == len(items), "two graded items share a grade_id"
    assert len({i.suite for i in items}) == len(items), "two graded items share a suite"
    assert len({e.notebook for e in EXERCISES}) == len(EXERCISES)
    assert all(i.points > 0 for i in items)
    assert TOTAL_POINTS == sum(i.points for i in items)
    numbers = [e.notebook[:3] for e in EXERCISES]
    assert numbers == [f"{n:02d}_" for n in range(1, len(EXERCISES) + 1)], "notebooks in order"


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
