"""notebooks/ is exactly what nbgrader generates from solutions/, and leaks nothing."""

import functools
import json
import re
from pathlib import Path

import nbformat
import pytest

from autograder.reference import SOLUTIONS, is_answer_cell, nbgrader_meta
from autograder.rubric import EXERCISES

REPOSITORY = SOLUTIONS.parent
RELEASE = REPOSITORY / "notebooks"
DATA = REPOSITORY / "data"


@pytest.fixture(scope="module")
def regenerated(generated_course) -> Path:
    """A fresh release made by nbgrader from a copy of solutions/ (conftest.generated_course)."""
    return generated_course / "notebooks"


def released_files(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file()
                  and ".ipynb_checkpoints" not in p.parts)


def test_regenerating_the_student_copies_changes_nothing(regenerated):
    assert released_files(regenerated) == released_files(RELEASE)
    for name in released_files(RELEASE):
        fresh = json.loads((regenerated / name).read_text())
        kept = json.loads((RELEASE / name).read_text())
        assert fresh == kept, f"notebooks/{name} differs from solutions/: run `make release`"


@pytest.mark.fast  # reads the notebooks; no nbgrader, no kernel
def test_every_exercise_is_released():
    for exercise in EXERCISES:
        assert (RELEASE / exercise.path).is_file(), f"notebooks/{exercise.path} is missing"


SOLUTION_REGION = re.compile(r"### BEGIN SOLUTION(.*?)### END SOLUTION", re.S)
HIDDEN_REGION = re.compile(r"### BEGIN HIDDEN TESTS(.*?)### END HIDDEN TESTS", re.S)


def split_lines(notebook) -> tuple[set[str], set[str]]:
    """(lines inside solution regions or hidden tests, lines outside them) of a source notebook."""
    secret, public = set(), set()
    for cell in notebook.cells:
        source = cell.source
        regions = SOLUTION_REGION.findall(source) + HIDDEN_REGION.findall(source)
        if is_answer_cell(cell) and not SOLUTION_REGION.search(source):
            regions.append(source)  # a whole answer cell is its solution when unmarked
        remainder = HIDDEN_REGION.sub("", SOLUTION_REGION.sub("", source))
        if is_answer_cell(cell) and not SOLUTION_REGION.search(source):
            remainder = ""
        public.update(line.strip() for line in remainder.splitlines())
        for region in regions:
            secret.update(line.strip() for line in region.splitlines())
    return secret, public


GENERIC = re.compile(r"^(except [\w.]+( as \w+)?|else|try|finally):$")


@functools.cache
def public_line_counts() -> dict[str, int]:
    """For every line written outside secret regions: in how many source notebooks."""
    counts: dict[str, int] = {}
    for path in SOLUTIONS.rglob("*.ipynb"):
        for line in split_lines(nbformat.read(path, as_version=4))[1]:
            counts[line] = counts.get(line, 0) + 1
    return counts


def secret_lines(notebook) -> set[str]:
    """Lines of a source notebook's solutions and hidden tests that would give something away.

    Left out: short lines and comments, generic statements (`except ValueError as error:`),
    lines this notebook shows in its own public text, and lines public in three or more
    notebooks. A solution line of one notebook in another notebook's public text is a leak.
    """
    secret, public = split_lines(notebook)
    counts = public_line_counts()
    return {line for line in secret - public
            if len(line) >= 16 and not line.startswith("#") and not GENERIC.match(line)
            and counts.get(line, 0) < 3}


def student_texts() -> dict[str, str]:
    """Everything a student receives: the released notebooks and the data folder."""
    texts = {}
    for path in sorted(RELEASE.rglob("*.ipynb")):
        texts[str(path.relative_to(REPOSITORY))] = path.read_text()
    for path in sorted(DATA.rglob("*")):
        if path.is_file() and path.stat().st_size < 5_000_000:
            try:
                texts[str(path.relative_to(REPOSITORY))] = path.read_text()
            except UnicodeDecodeError:
                continue
    return texts


@pytest.mark.fast  # reads the notebooks; no nbgrader, no kernel
@pytest.mark.parametrize("exercise", EXERCISES, ids=lambda e: e.notebook)
def test_no_solution_or_hidden_test_line_reaches_students(exercise):
    path = SOLUTIONS / exercise.path
    assert path.is_file(), f"{path} is missing"
    secrets = secret_lines(nbformat.read(path, as_version=4))
    assert secrets, "the source notebook has no solution region"
    for name, text in student_texts().items():
        assert "BEGIN SOLUTION" not in text and "BEGIN HIDDEN TESTS" not in text, name
        assert "grade_cell(" not in text, f"{name} contains a hidden test call"
        # Notebook JSON escapes quotes; compare with the decoded sources when possible.
        if name.endswith(".ipynb"):
            text = "\n".join(c.source for c in nbformat.reads(text, as_version=4).cells)
        lines = {line.strip() for line in text.splitlines()}
        leaked = sorted(secrets & lines)
        assert not leaked, f"{name} contains solution lines of {exercise.notebook}: {leaked[:3]}"


@pytest.mark.fast  # reads the notebooks; no nbgrader, no kernel
@pytest.mark.parametrize("exercise", EXERCISES, ids=lambda e: e.notebook)
def test_student_copies_have_no_outputs_and_stubbed_answers(exercise):
    notebook = nbformat.read(RELEASE / exercise.path, as_version=4)
    for cell in notebook.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [], "released notebooks carry no outputs"
        if is_answer_cell(cell):
            assert "raise NotImplementedError" in cell.source, nbgrader_meta(cell)["grade_id"]


@pytest.mark.fast  # reads the notebooks; no nbgrader, no kernel
@pytest.mark.parametrize("exercise", EXERCISES, ids=lambda e: e.notebook)
def test_source_notebooks_store_their_figures(exercise):
    """Stored outputs come from a real run (make outputs), figures included: a run with a
    non-inline matplotlib backend would leave nbval nothing to compare and students no picture."""
    notebook = nbformat.read(SOLUTIONS / exercise.path, as_version=4)
    code_cells = [cell for cell in notebook.cells if cell.cell_type == "code"]
    assert all(cell.execution_count for cell in code_cells), "run `make outputs`"
    figures = [cell for cell in code_cells if "plt.show()" in cell.source]
    assert figures, "every notebook has at least one figure"
    for cell in figures:
        kinds = {kind for output in cell.outputs for kind in output.get("data", {})}
        assert "image/png" in kinds, f"no stored picture for the cell starting {cell.source[:60]!r}"


# A provided cell longer than this many lines is folded: a student scrolls past the folded bar
# (`···`, one click to unfold) to the exercise, instead of past several screens of code.
FOLD_ABOVE_LINES = 150


@pytest.mark.fast  # reads the notebooks; no nbgrader, no kernel
@pytest.mark.parametrize("exercise", EXERCISES, ids=lambda e: e.notebook)
def test_very_long_provided_cells_reach_students_folded(exercise):
    """07's two setup cells and its race self-check are about 175 lines each: unfolded, the
    setup cells alone fill eight screens of a 1366x768 laptop before Part 1. JupyterLab folds a
    cell whose metadata says `jupyter.source_hidden`, and nbgrader's release keeps it."""
    for folder in (SOLUTIONS, RELEASE):
        notebook = nbformat.read(folder / exercise.path, as_version=4)
        unfolded = [nbgrader_meta(cell).get("grade_id") for cell in notebook.cells
                    if cell.cell_type == "code" and not is_answer_cell(cell)
                    and len(cell.source.splitlines()) > FOLD_ABOVE_LINES
                    and not cell.metadata.get("jupyter", {}).get("source_hidden")]
        assert not unfolded, (
            f"{folder.name}/{exercise.path}: provided cells of more than {FOLD_ABOVE_LINES} lines "
            f"shown unfolded: {unfolded}; set jupyter.source_hidden in solutions/, then release")
