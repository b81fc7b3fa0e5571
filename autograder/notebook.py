"""Read a submitted notebook and find the code the grader runs.

The grader runs, in order: the trusted setup cells of the source notebook in `solutions/`,
then the student's answer cells and any code cells the student added. Narrative, figure,
self-check and grade cells are not run (their trusted copies are the instructor's, and the
hidden tests come from `autograder/`). Problems a student can cause, such as a deleted,
duplicated or retyped answer cell, become sentences in `Extracted.problems`, never crashes.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from .reference import answer_cell_ids, nbgrader_meta, setup_sources
from .rubric import Exercise

MAX_NOTEBOOK_BYTES = 20 * 1024 * 1024


class NotebookError(Exception):
    """A file that cannot be graded as a notebook; the message is one sentence for a person."""


@dataclass
class Extracted:
    prelude: list[str]
    cells: list[dict]  # {"label": str, "source": str}
    problems: list[str] = field(default_factory=list)


def read_notebook(path: Path) -> nbformat.NotebookNode:
    path = Path(path)
    if not path.is_file():
        raise NotebookError(f"{path} does not exist or is not a file")
    if path.stat().st_size > MAX_NOTEBOOK_BYTES:
        raise NotebookError(f"{path} is larger than {MAX_NOTEBOOK_BYTES // 2**20} MiB")
    try:
        data = json.loads(path.read_bytes().decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        raise NotebookError(f"{path} is not a notebook: it is not valid JSON") from None
    if not isinstance(data, dict) or not isinstance(data.get("cells"), list):
        raise NotebookError(f"{path} is not a notebook: it has no list of cells")
    try:
        return nbformat.reads(json.dumps(data), as_version=4)
    except Exception as error:  # nbformat raises several types for malformed documents
        raise NotebookError(f"{path} is not a readable notebook ({error})") from None


def _to_python(source: str) -> str:
    """Turn IPython syntax (magics, !shell) into plain Python, as a kernel would."""
    from IPython.core.inputtransformer2 import TransformerManager

    try:
        return TransformerManager().transform_cell(source)
    except Exception:
        return source


def extract(notebook: nbformat.NotebookNode, exercise: Exercise) -> Extracted:
    """The code to run for `exercise`: trusted prelude, then the student's cells in order."""
    expected = answer_cell_ids(exercise)
    result = Extracted(prelude=list(setup_sources(exercise)), cells=[])
    seen: dict[str, int] = {}
    for position, cell in enumerate(notebook.cells, start=1):
        if not isinstance(cell, dict):
            continue
        meta = nbgrader_meta(cell) if isinstance(cell.get("metadata"), dict) else {}
        grade_id = meta.get("grade_id") if isinstance(meta, dict) else None
        source = cell.get("source", "")
        source = "".join(source) if isinstance(source, list) else str(source)
        if grade_id in expected:
            seen[grade_id] = seen.get(grade_id, 0) + 1
            if seen[grade_id] > 1:
                result.problems.append(
                    f"the answer cell {grade_id!r} appears more than once; "
                    "only its first copy was graded")
                continue
            if cell.get("cell_type") != "code":
                result.problems.append(
                    f"the answer cell {grade_id!r} was changed into a {cell.get('cell_type')} "
                    "cell, so its code was not run; change it back to a code cell")
                continue
            result.cells.append({"label": f"answer cell {grade_id}", "source": _to_python(source)})
        elif not meta and cell.get("cell_type") == "code":
            result.cells.append({"label": f"your cell {position}", "source": _to_python(source)})
    for grade_id in expected:
        if grade_id not in seen:
            result.problems.append(
                f"the answer cell {grade_id!r} is missing (deleted, or its metadata was "
                "removed); fetch a fresh copy of the notebook and paste your code into it")
    return result
