"""The reference solutions, read from the nbgrader source notebooks in `solutions/`.

Nothing here copies a solution: the setup cells and answer cells of each source notebook are
executed in a fresh namespace of the grader's own process, and the hidden suites' expected
outcomes come from that namespace.
"""

from __future__ import annotations

import copy
import json
import os
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from .filecache import PerChange
from .rubric import Exercise

if TYPE_CHECKING:
    import nbformat

REPOSITORY = Path(__file__).resolve().parent.parent
SOLUTIONS = REPOSITORY / "solutions"


def nbgrader_meta(cell: dict) -> dict:
    return cell.get("metadata", {}).get("nbgrader", {}) or {}


def is_setup_cell(cell: dict) -> bool:
    """Locked code cells whose grade_id starts with "setup": imports and helpers students use."""
    meta = nbgrader_meta(cell)
    return (cell.get("cell_type") == "code" and not meta.get("solution")
            and str(meta.get("grade_id", "")).startswith("setup"))


def is_answer_cell(cell: dict) -> bool:
    meta = nbgrader_meta(cell)
    return bool(meta.get("solution")) and not meta.get("grade")


def _read_validated(path: Path) -> nbformat.NotebookNode:
    import nbformat  # only where the reference is worked out: grading itself reads `plain_cells`

    return nbformat.read(path, as_version=4)


_read = PerChange(_read_validated)


def source_notebook(exercise: Exercise) -> nbformat.NotebookNode:
    """The source notebook of `exercise`, read and validated once per change of the file (a
    copy: callers may change it)."""
    return copy.deepcopy(_read(SOLUTIONS / exercise.path))


def _plain_cells(path: Path) -> tuple[dict, ...]:
    cells = json.loads(path.read_bytes())["cells"]
    return tuple({**cell, "source": "".join(cell["source"]) if isinstance(cell["source"], list)
                  else cell["source"]} for cell in cells)


# The cells of one of the course's own notebooks (solutions/ or notebooks/), each source one
# str, as nbformat reads them: these files are the instructor's, which nbval and the tests
# check, so grading reads them without nbformat. Once per change of the file.
plain_cells = PerChange(_plain_cells)


def solution_cells(exercise: Exercise) -> tuple[dict, ...]:
    """The cells of `exercise`'s source notebook, as `plain_cells` reads them (grading's own
    checks and the reference's namespace need no schema: compiling nbformat's costs a first
    run a tenth of a second)."""
    return plain_cells(SOLUTIONS / exercise.path)


@cache
def setup_sources(exercise: Exercise) -> tuple[str, ...]:
    """The trusted setup code every grading run of this exercise starts with."""
    return tuple(cell["source"] for cell in plain_cells(SOLUTIONS / exercise.path)
                 if is_setup_cell(cell))


def top_level_names(source: str) -> set[str]:
    """Names a cell binds at its top level (definitions, assignments, imports, loop and
    `with` targets); a cell that is not plain Python (IPython syntax) binds none here."""
    import ast

    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set()
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
        elif isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.For, ast.With)):
            names.update(target.id for target in ast.walk(node)
                         if isinstance(target, ast.Name) and isinstance(target.ctx, ast.Store))
    return names


@cache
def names_grading_skips(exercise: Exercise) -> frozenset[str]:
    """Names that only cells a graded run skips bind in `exercise`'s notebook (its worked
    examples, figures and self-checks: not setup, answer or grade cells), such as 03's timing
    cell's `field_ranges` or a self-check's `import math`. An answer that uses one runs in the
    notebook and fails when graded; the grader says why (`scoring.score_run`)."""
    run: set[str] = set()
    skipped: set[str] = set()
    for cell in solution_cells(exercise):
        if cell.get("cell_type") != "code":
            continue
        names = top_level_names(cell["source"])
        graded_run = is_setup_cell(cell) or is_answer_cell(cell)
        (run if graded_run else skipped).update(names)
    return frozenset(skipped - run)


@cache
def answer_cell_ids(exercise: Exercise) -> tuple[str, ...]:
    """grade_ids of the answer cells a student is expected to fill in, in order."""
    return tuple(nbgrader_meta(cell)["grade_id"]
                 for cell in plain_cells(SOLUTIONS / exercise.path) if is_answer_cell(cell))


@cache
def namespace(exercise: Exercise) -> dict:
    """A namespace in which the reference solution of `exercise` is defined."""
    names: dict = {"__name__": "__reference__"}
    cells = solution_cells(exercise)
    here = os.getcwd()
    os.chdir(SOLUTIONS / exercise.assignment)  # setup cells find data/ from where a notebook runs
    try:
        for cell in cells:
            if is_setup_cell(cell) or is_answer_cell(cell):
                # dont_inherit: notebook code must not pick up this module's __future__ imports
                code = compile(cell["source"], f"<reference {exercise.notebook}>", "exec",
                               dont_inherit=True)
                exec(code, names)
    finally:
        os.chdir(here)
    return names
