"""An instructor in JupyterLab (`make lab-instructor`): Create Assignment and Formgrader work."""

from __future__ import annotations

import nbformat
from labserver import ASSIGNMENTS, REPOSITORY
from labui import (
    LOAD_MS,
    create_assignment_points,
    formgrader_problems,
    known_outside_error,
    menu,
    open_from_file_browser,
)


def points_of(value: str) -> float:
    return float(value) if value.strip() else 0.0


def test_create_assignment_shows_each_grade_cells_points_and_the_total(instructor_page):
    page = instructor_page
    source = sorted((REPOSITORY / "solutions").glob("*/*.ipynb"))[0]
    relative = source.relative_to(REPOSITORY).as_posix()
    graded = [cell.metadata["nbgrader"]["points"]
              for cell in nbformat.read(source, as_version=4).cells
              if cell.metadata.get("nbgrader", {}).get("points") is not None]
    assert graded, f"{relative} has no cell with points"
    open_from_file_browser(page, relative)
    total, cells = create_assignment_points(page)
    # Closing the notebook with the panel open: nbgrader's own panel throws a TypeError
    # ("reading 'model'") from its bundle; nothing else may log an error.
    menu(page, "File", "Close Tab")
    page.locator(".jp-NotebookPanel").wait_for(state="detached", timeout=LOAD_MS)
    assert [points_of(value) for value in cells] == [float(p) for p in graded], (
        f"Create Assignment shows points {cells} for {relative}; its grade cells carry {graded}")
    assert points_of(total) == float(sum(graded))
    assert [error for error in page.console_errors if not known_outside_error(error)] == []


def test_formgrader_lists_the_courses_assignments(instructor_page):
    assert formgrader_problems(instructor_page, ASSIGNMENTS) == []
    assert [error for error in instructor_page.console_errors
            if not known_outside_error(error)] == []
