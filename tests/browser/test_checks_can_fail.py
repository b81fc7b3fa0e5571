"""The browser checks catch what they are for: each is shown failing on a copy broken on purpose.

The broken copies live only in the suite's temporary course copy, never in the repository.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
from labserver import ASSIGNMENTS, REPOSITORY, copy_course, expected_figures, start_lab
from labui import (
    NotebookRun,
    formgrader_problems,
    open_from_file_browser,
    open_lab,
    problems,
    read_cells,
    restart_and_run_all,
    wait_for_images,
)

FIRST = REPOSITORY / "notebooks" / "schedules" / "01_parse_cron_field.ipynb"


def broken_copy_of_first_notebook(destination: Path) -> None:
    """01 with its first figure suppressed, then a figure that cannot load, a console error from
    the notebook, an unexpected exception, and a last cell that is therefore never reached."""
    notebook = nbformat.read(FIRST, as_version=4)
    figures = expected_figures(FIRST)
    first_figure = min(index for index, count in figures.items() if count)
    # broken on purpose: the cell still runs, but its figure is swallowed
    notebook.cells[first_figure].source = "%%capture\n" + notebook.cells[first_figure].source
    notebook.cells += [
        nbformat.v4.new_code_cell(
            'from IPython.display import Image, display\n'
            'display(Image(data=b"not a PNG", format="png"))  # a figure that cannot render'),
        nbformat.v4.new_code_cell(
            'from IPython.display import Javascript\n'
            'display(Javascript("console.error(\'broken on purpose: a console error\')"))'),
        nbformat.v4.new_code_cell('1 / 0  # an error that is not an unfinished answer'),
        nbformat.v4.new_code_cell('print("the last cell")'),
    ]
    nbformat.write(notebook, destination)


def test_a_broken_notebook_is_reported_with_each_of_its_faults(student_page, course):
    page = student_page
    name = "01_broken_on_purpose.ipynb"
    broken_copy_of_first_notebook(course / "notebooks" / "schedules" / name)
    open_from_file_browser(page, f"schedules/{name}")
    restart_and_run_all(page)
    wait_for_images(page)
    run = NotebookRun(name=name, cells=read_cells(page), console_errors=list(page.console_errors))
    found = "\n".join(problems(run, expected_figures(FIRST)))
    for fault in (r"1 figure\(s\) expected, 0 shown",
                  r"figure 1 did not render",
                  r"browser console error: broken on purpose: a console error",
                  r"unexpected error output: ZeroDivisionError",
                  r"execution did not reach the last code cell"):
        assert re.search(fault, found), f"the check missed {fault!r}; it reported:\n{found}"


def test_formgrader_that_cannot_find_alembic_is_reported(page, tmp_path):
    """Without the PATH block of nbgrader_config.py, Formgrader fails as the issue describes."""
    broken = copy_course(tmp_path / "course")
    config = broken / "nbgrader_config.py"
    text = config.read_text()
    block = re.compile(r"# --- Formgrader from an unactivated venv.*?# --- end of the Formgrader "
                       r"block -+\n", re.S)
    assert block.search(text), "nbgrader_config.py has no Formgrader block to remove"
    config.write_text(block.sub("", text))
    server = start_lab(broken, tmp_path / "lab", student=False)
    try:
        open_lab(page, server.url("/lab"))
        found = formgrader_problems(page, ASSIGNMENTS)
    finally:
        server.stop()
    assert found and "HTTP 500" in found[0], found
    assert "alembic" in server.log()
