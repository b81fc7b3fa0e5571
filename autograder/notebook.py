"""Read a submitted notebook and find the code the grader runs.

The grader runs, in order: the trusted setup cells of the source notebook in `solutions/`,
then the student's answer cells and any code cells the student added. Narrative, figure,
self-check and grade cells are not run (their trusted copies are the instructor's, and the
hidden tests come from `autograder/`). Problems a student can cause, such as a deleted,
duplicated or retyped answer cell, become sentences in `Extracted.problems`, never crashes.
"""

from __future__ import annotations

import json
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from .reference import answer_cell_ids, nbgrader_meta, setup_sources
from .rubric import Exercise

MAX_NOTEBOOK_BYTES = 20 * 1024 * 1024


class NotebookError(Exception):
    """A file that cannot be graded as a notebook; the message is one sentence for a person."""


class NotebookRefused(NotebookError):
    """A file the grader will not even read: not a regular file of its own, or too large."""


@dataclass
class Extracted:
    prelude: list[str]
    # {"label": str, "source": str}: the student's cells as written; the sandbox turns IPython
    # syntax (magics, !shell) into Python itself, under the cell's time limit
    cells: list[dict]
    problems: list[str] = field(default_factory=list)


def read_bytes_bounded(path: Path, limit: int = MAX_NOTEBOOK_BYTES) -> bytes:
    """The bytes of a regular file of at most `limit` bytes, checked before anything is read:
    a symbolic link, a folder, a FIFO or device, or a larger (or sparse, or growing) file is
    refused with NotebookRefused, so reading never costs more than `limit` bytes of memory."""
    path = Path(path)
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        raise NotebookError(f"{path} does not exist or is not a file") from None
    if not stat.S_ISREG(info.st_mode):
        raise NotebookRefused(f"{path} is not a regular file (a symbolic link, folder or "
                              "device); submit the notebook file itself")
    if info.st_size > limit:
        raise NotebookRefused(f"{path} is larger than {limit // 2**20} MiB")
    descriptor = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        opened = os.fstat(descriptor)
        if (opened.st_dev, opened.st_ino) != (info.st_dev, info.st_ino) \
                or not stat.S_ISREG(opened.st_mode):
            raise NotebookRefused(f"{path} changed while it was being read")
        chunks, size = [], 0
        while size <= limit:
            chunk = os.read(descriptor, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    finally:
        os.close(descriptor)
    if size > limit:
        raise NotebookRefused(f"{path} is larger than {limit // 2**20} MiB")
    return b"".join(chunks)


def read_notebook(path: Path) -> nbformat.NotebookNode:
    path = Path(path)
    raw = read_bytes_bounded(path)
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        raise NotebookError(f"{path} is not a notebook: it is not valid JSON") from None
    if not isinstance(data, dict) or not isinstance(data.get("cells"), list):
        raise NotebookError(f"{path} is not a notebook: it has no list of cells")
    try:
        return nbformat.reads(json.dumps(data), as_version=4)
    except Exception as error:  # nbformat raises several types for malformed documents
        raise NotebookError(f"{path} is not a readable notebook ({error})") from None


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
            result.cells.append({"label": f"answer cell {grade_id}", "source": source})
        elif not meta and cell.get("cell_type") == "code":
            result.cells.append({"label": f"your cell {position}", "source": source})
    for grade_id in expected:
        if grade_id not in seen:
            result.problems.append(
                f"the answer cell {grade_id!r} is missing (deleted, or its metadata was "
                "removed); fetch a fresh copy of the notebook and paste your code into it")
    return result
