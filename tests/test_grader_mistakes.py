"""The grader's own mistakes fail loudly when it prepares, never as a silent pass (issue 9, 11).

A misspelt probe name used to make the reference raise, `_check_reference` accepted any raised
outcome, and `judge` then passed every submission that raised too. Each mistake below must be
an error from `grading.prepare`, and a notebook of that exercise must then get no points and
a sentence that says the grader cannot grade it.
"""

from __future__ import annotations

import copy
from dataclasses import replace

import fixtures
import nbformat
import pytest

from autograder import grading, isolation, reference, suite
from autograder.results import NotebookResult
from autograder.rubric import exercise_for

BACKOFF = exercise_for("05_backoff_delays")
ITEM = BACKOFF.items[0]


@pytest.fixture
def fresh(monkeypatch):
    """Forget what earlier preparation computed, before and after the test."""
    def forget():
        suite.expected_outcomes.cache_clear()
        suite.exercise_cases.cache_clear()
        grading._READY.clear()
        grading._BROKEN.clear()

    forget()
    yield monkeypatch
    forget()


def _with_cases(monkeypatch, change) -> None:
    real = suite.cases_for

    def cases_for(item):
        cases = real(item)
        return change(cases) if item.grade_id == ITEM.grade_id else cases

    monkeypatch.setattr(suite, "cases_for", cases_for)


def _graded_stub_that_raises(tmp_path) -> NotebookResult:
    answer = "def backoff_delays(attempts, base, cap, seed):\n    raise KeyError('x')\n"
    path = tmp_path / f"{BACKOFF.notebook}.ipynb"
    nbformat.write(fixtures.build_submission(BACKOFF, {"answer_backoff_delays": answer}), path)
    return grading.grade_notebook(path, grading.Options(isolation=isolation.Isolation("none")))


def test_a_probe_that_does_not_exist_is_refused(fresh, tmp_path):
    _with_cases(fresh, lambda cases: [replace(cases[0], probe="backoff_delays.misspelt"),
                                      *cases[1:]])
    problems = grading.prepare((BACKOFF,))
    assert len(problems) == 1 and "backoff_delays.misspelt" in problems[0]
    assert "does not exist" in problems[0]
    result = _graded_stub_that_raises(tmp_path)
    assert result.score == 0 and not result.readable
    assert "cannot be graded here" in result.problems[0]


def test_a_reference_that_raises_where_a_value_is_expected_is_refused(fresh):
    # The reference raises TypeError (too few arguments) where the case expects delays.
    _with_cases(fresh, lambda cases: [replace(cases[0], args=cases[0].args[:2]), *cases[1:]])
    problems = grading.prepare((BACKOFF,))
    assert len(problems) == 1 and "TypeError" in problems[0], problems
    assert "expects a value or one of ValueError" in problems[0]


def test_a_grade_cell_that_runs_another_items_tests_is_refused(fresh):
    real = reference.solution_cells

    def solution_cells(exercise):
        cells = copy.deepcopy(real(exercise))
        if exercise == BACKOFF:
            for cell in cells:
                if reference.nbgrader_meta(cell).get("grade"):
                    cell["source"] = cell["source"].replace(f'grade_cell("{ITEM.grade_id}"',
                                                            'grade_cell("test_append_if_new"')
        return cells

    fresh.setattr(grading, "solution_cells", solution_cells)
    problems = grading.prepare((BACKOFF,))
    assert len(problems) == 1 and "test_append_if_new" in problems[0], problems
    assert "each grade cell must run its own" in problems[0]


def test_an_exercise_without_its_reference_solution_is_refused_not_skipped(fresh, tmp_path):
    fresh.setattr(grading, "SOLUTIONS", tmp_path / "no-solutions")
    problems = grading.prepare((BACKOFF,))
    assert problems == [f"the reference solution solutions/{BACKOFF.path} is missing"]
    result = _graded_stub_that_raises(tmp_path)
    assert result.score == 0 and not result.readable
    assert result.problems[0].startswith(f"{BACKOFF.notebook} cannot be graded here: the "
                                         "reference solution")


def test_the_course_as_it_is_prepares_without_a_problem(fresh):
    assert grading.prepare() == []
