"""Small notebook and cell factories for tests that need no kernel and no sandbox.

In the manner of nbgrader's own tests: build exactly the cells a test is about, with the
nbgrader metadata the grader reads, instead of loading a course notebook.
"""

from __future__ import annotations

import nbformat


def _nbgrader(**meta: object) -> dict:
    return {"nbgrader": {"schema_version": 3, "locked": False, "solution": False,
                         "grade": False, "task": False, **meta}}


def answer_cell(grade_id: str, source: str = "raise NotImplementedError()"
                ) -> nbformat.NotebookNode:
    """A cell the student writes in (nbgrader "autograded answer")."""
    return nbformat.v4.new_code_cell(source, metadata=_nbgrader(grade_id=grade_id, solution=True))


def grade_cell(grade_id: str, points: float, source: str = "") -> nbformat.NotebookNode:
    """A locked cell holding tests (nbgrader "autograder tests")."""
    return nbformat.v4.new_code_cell(source, metadata=_nbgrader(
        grade_id=grade_id, grade=True, locked=True, points=points))


def setup_cell(grade_id: str, source: str) -> nbformat.NotebookNode:
    """A locked code cell of the instructor's (imports and helpers)."""
    return nbformat.v4.new_code_cell(source, metadata=_nbgrader(grade_id=grade_id, locked=True))


def student_cell(source: str) -> nbformat.NotebookNode:
    """A code cell the student added: no nbgrader metadata at all."""
    return nbformat.v4.new_code_cell(source)


def markdown_cell(source: str) -> nbformat.NotebookNode:
    return nbformat.v4.new_markdown_cell(source)


def notebook(*cells: nbformat.NotebookNode) -> nbformat.NotebookNode:
    return nbformat.v4.new_notebook(cells=list(cells))
