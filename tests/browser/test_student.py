"""A student in JupyterLab: every notebook runs from the menu, figures show, self-checks tick."""

from __future__ import annotations

import shutil
from pathlib import Path

import nbformat
import pytest
from labserver import REPOSITORY, expected_figures
from labui import (
    ACTIVE_NOTEBOOK,
    CELL,
    LOAD_MS,
    NotebookRun,
    open_from_file_browser,
    problems,
    read_cells,
    restart_and_run_all,
    validate,
    wait_for_images,
)

STUDENT_NOTEBOOKS = sorted(REPOSITORY.glob("notebooks/*/*.ipynb"))


def run_as_student(page, relative: str) -> NotebookRun:
    """Open `relative` (under notebooks/) from the file browser and Restart and Run All."""
    open_from_file_browser(page, relative)
    restart_and_run_all(page)
    wait_for_images(page)
    return NotebookRun(name=relative, cells=read_cells(page),
                       console_errors=list(page.console_errors))


@pytest.mark.parametrize(
    "notebook", STUDENT_NOTEBOOKS, ids=[path.stem for path in STUDENT_NOTEBOOKS])
def test_an_untouched_notebook_runs_to_the_end_with_only_unfinished_answers_failing(
        student_page, notebook: Path) -> None:
    relative = notebook.relative_to(REPOSITORY / "notebooks").as_posix()
    run = run_as_student(student_page, relative)
    cells_on_disk = nbformat.read(notebook, as_version=4).cells
    assert len(run.cells) == len(cells_on_disk), (
        f"JupyterLab shows {len(run.cells)} cells of {relative}, the file has {len(cells_on_disk)}")
    sources = [cell.source for cell in cells_on_disk]
    assert problems(run, expected_figures(notebook), sources) == []
    # An untouched copy has unfinished answers: their NotImplementedError must be what shows.
    assert any(cell.errors for cell in run.code_cells), (
        f"{relative}: no NotImplementedError shown although every answer is unfinished")


def reference_answer(notebook: Path, grade_id: str) -> str:
    """The solution cell's code from solutions/, without nbgrader's solution markers."""
    source = REPOSITORY / "solutions" / notebook.relative_to(REPOSITORY / "notebooks")
    for cell in nbformat.read(source, as_version=4).cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") == grade_id:
            return "\n".join(line for line in cell.source.splitlines()
                             if line.strip() not in ("### BEGIN SOLUTION", "### END SOLUTION"))
    raise LookupError(f"no cell {grade_id} in {source}")


def cell_index(notebook: Path, prefix: str) -> int:
    cells = nbformat.read(notebook, as_version=4).cells
    matches = [index for index, cell in enumerate(cells)
               if cell.metadata.get("nbgrader", {}).get("grade_id", "").startswith(prefix)]
    assert len(matches) == 1, f"{notebook.name}: expected one cell whose grade_id starts {prefix}"
    return matches[0]


def test_a_correct_answer_typed_into_01_makes_every_self_check_tick(student_page) -> None:
    page = student_page
    notebook = REPOSITORY / "notebooks" / "schedules" / "01_parse_cron_field.ipynb"
    answer_at = cell_index(notebook, "answer_")
    check_at = cell_index(notebook, "selfcheck_")
    grade_id = nbformat.read(notebook, as_version=4).cells[answer_at].metadata["nbgrader"][
        "grade_id"]
    answer = reference_answer(notebook, grade_id)
    # The reference run stored in solutions/ prints one ✓ per self-check line.
    source = REPOSITORY / "solutions" / "schedules" / "01_parse_cron_field.ipynb"
    stored = nbformat.read(source, as_version=4).cells[check_at].outputs
    reference_ticks = [line for output in stored if output.get("name") == "stdout"
                       for line in output["text"].splitlines() if line.startswith("✓")]
    assert reference_ticks, "the stored self-check output in solutions/ has no ✓ line"

    open_from_file_browser(page, "schedules/01_parse_cron_field.ipynb")
    editor = page.locator(f"{ACTIVE_NOTEBOOK} .jp-Notebook .jp-Cell").nth(answer_at).locator(
        ".cm-content")
    editor.click()
    page.keyboard.press("Control+A")
    page.keyboard.press("Delete")
    page.keyboard.insert_text(answer)  # as pasted: no auto-indent or closing brackets added
    page.keyboard.press("Escape")
    typed = editor.inner_text()
    assert "NotImplementedError" not in typed and "def parse_cron_field" in typed, typed
    restart_and_run_all(page)
    wait_for_images(page)
    run = NotebookRun(name="01_parse_cron_field (answered)", cells=read_cells(page),
                      console_errors=list(page.console_errors))

    check_cell = run.cells[check_at]
    assert check_cell.errors == [], f"the self-check failed on the reference answer: {check_cell}"
    ticks = [line for line in check_cell.stdout.splitlines() if line.startswith("✓")]
    assert ticks == reference_ticks, f"the self-check printed {check_cell.stdout!r}"
    # With the answer in place nothing fails any more, and every figure of the source shows.
    assert problems(run, expected_figures(notebook)) == []
    assert not any(cell.errors for cell in run.code_cells)


def test_a_student_is_not_offered_nbgraders_exchange_or_instructor_tools(student_page) -> None:
    """`make lab` hands out files: no Nbgrader menu (Assignment List, Course List, Formgrader),
    no Create Assignment panel, but the notebook's Validate button."""
    page = student_page
    menus = [label.strip() for label in page.locator(".lm-MenuBar-itemLabel").all_inner_texts()]
    assert "Kernel" in menus and "Nbgrader" not in menus, menus
    sidebar = page.locator(".jp-SideBar .lm-TabBar-tab").evaluate_all(
        "tabs => tabs.map(tab => tab.title + ' ' + tab.textContent)")
    assert not [tab for tab in sidebar if "Create Assignment" in tab], sidebar
    open_from_file_browser(page, STUDENT_NOTEBOOKS[0].relative_to(
        REPOSITORY / "notebooks").as_posix())
    page.locator(f"{ACTIVE_NOTEBOOK} .jp-Toolbar").get_by_text("Validate", exact=True).wait_for()


def test_validate_fails_an_unanswered_notebook_and_passes_an_answered_one(
        student_page, course: Path) -> None:
    """The student copies' grade cells hold no visible test, so nbgrader's Validate looked at
    nothing and said "Success!" for an untouched notebook. `make lab`'s configuration
    (jupyter/student/nbgrader_config.py) makes it check every cell. Validate saves first, so it
    works on copies the test adds (not course files)."""
    page = student_page
    notebook = REPOSITORY / "notebooks" / "schedules" / "01_parse_cron_field.ipynb"
    answered = nbformat.read(notebook, as_version=4)
    answer_at = cell_index(notebook, "answer_")
    grade_id = answered.cells[answer_at].metadata["nbgrader"]["grade_id"]
    answered.cells[answer_at].source = reference_answer(notebook, grade_id)
    folder = course / "notebooks" / "schedules"
    shutil.copy2(notebook, folder / "validate_untouched.ipynb")
    nbformat.write(answered, str(folder / "validate_answered.ipynb"))

    open_from_file_browser(page, "schedules/validate_untouched.ipynb")
    untouched = validate(page)
    assert "The following cell failed" in untouched, untouched
    assert "NotImplementedError" in untouched, untouched
    assert "Success!" not in untouched, untouched
    open_from_file_browser(page, "schedules/validate_answered.ipynb")
    assert "Success! Your notebook passes all the tests." in validate(page)


def long_given_line(notebook: Path, longer_than: int = 100, within: int = 10) -> tuple[int, str]:
    """The first line longer than `longer_than` characters among the first `within` lines of a
    code cell students are given as is (not an answer cell), and that cell's index. Near the top
    of its cell, so that its editor draws it once the cell is in view: CodeMirror draws only the
    lines on screen."""
    cells = nbformat.read(notebook, as_version=4).cells
    for index, cell in enumerate(cells):
        if cell.cell_type != "code" or cell.metadata.get("nbgrader", {}).get("solution"):
            continue
        for line in cell.source.splitlines()[:within]:
            if len(line) > longer_than:
                return index, line
    raise LookupError(f"{notebook.name} gives no line longer than {longer_than} characters")


def test_long_lines_of_a_given_cell_wrap_on_a_small_screen(student_page) -> None:
    """At 1024 px with the file browser open, about 72 characters of a code cell fit, and most
    given cells have longer lines. `make lab` wraps code cells' lines
    (jupyter/student/labconfig/default_setting_overrides.json): a given cell's editor has nothing
    to scroll sideways, and a line of more than 100 characters takes more than one row."""
    page = student_page
    notebook = REPOSITORY / "notebooks" / "schedules" / "01_parse_cron_field.ipynb"
    index, line = long_given_line(notebook)
    wide = page.viewport_size
    page.set_viewport_size({"width": 1024, "height": 768})
    try:
        assert page.locator("#filebrowser").is_visible(), "the file browser is not open"
        open_from_file_browser(page, "schedules/01_parse_cron_field.ipynb")
        editor = page.locator(CELL).nth(index).locator(".cm-editor")
        # The cell's top in view (the line is among its first ten): a tall cell only partly
        # scrolled into view would leave the line undrawn.
        editor.evaluate("editor => editor.scrollIntoView({block: 'start'})")
        # Measured once the editor draws the line (null until then, which keeps waiting).
        shown = page.wait_for_function(
            """([editor, text]) => {
                const row = [...editor.querySelectorAll('.cm-line')]
                    .find(candidate => candidate.textContent === text);
                if (!row) return null;
                const scroller = editor.querySelector('.cm-scroller');
                const range = document.createRange();
                range.selectNodeContents(row);
                const bottoms = [...range.getClientRects()].filter(rect => rect.width > 0)
                    .map(rect => Math.round(rect.bottom));
                return {scrollWidth: scroller.scrollWidth, clientWidth: scroller.clientWidth,
                        rows: new Set(bottoms).size};
            }""", arg=[editor.element_handle(), line], timeout=LOAD_MS, polling=250).json_value()
    finally:
        page.set_viewport_size(wide)
    assert shown["scrollWidth"] <= shown["clientWidth"], (
        f"cell {index}'s editor scrolls sideways ({shown['scrollWidth']} px of content in "
        f"{shown['clientWidth']} px): its lines do not wrap")
    assert shown["rows"] > 1, (
        f"cell {index}'s {len(line)}-character line takes {shown['rows']} row(s): {line!r}")
