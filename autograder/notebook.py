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
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from .reference import answer_cell_ids, nbgrader_meta, setup_sources
from .rubric import Exercise

MAX_NOTEBOOK_BYTES = 20 * 1024 * 1024
MAX_CODE_CHARACTERS = 2**20  # in all code cells together; a handed-in lab holds a few KiB
MAX_CELLS = 5000  # a handed-in lab holds a few hundred


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


# Reading a notebook's JSON costs memory and time that grow with its structure, not only its
# size (19 MiB of "{}," become 3.8 GB of Python objects), so the grader never parses a
# submission itself: a short-lived child process does, under these limits, and hands back only
# what grading uses (each cell's type, its code, its nbgrader metadata and id), for at most
# MAX_CELLS cells and MAX_CODE_CHARACTERS of code: a few MiB of the grader's memory at most.
PARSER_MEMORY_BYTES = 768 * 2**20
PARSER_CPU_SECONDS = 10
PARSER = """\
import json, resource, sys
resource.setrlimit(resource.RLIMIT_AS, (int(sys.argv[2]), int(sys.argv[2])))
resource.setrlimit(resource.RLIMIT_CPU, (int(sys.argv[3]), int(sys.argv[3]) + 1))
limit = int(sys.argv[1])
raw = sys.stdin.buffer.read(limit + 1)
if len(raw) > limit:
    print(json.dumps({"error": "large"})); sys.exit(0)
try:
    data = json.loads(raw.decode("utf-8"))
except (UnicodeDecodeError, ValueError, RecursionError):
    print(json.dumps({"error": "json"})); sys.exit(0)
del raw
if not isinstance(data, dict) or not isinstance(data.get("cells"), list):
    print(json.dumps({"error": "cells"})); sys.exit(0)
if len(data["cells"]) > int(sys.argv[5]):
    print(json.dumps({"error": "many", "count": len(data["cells"])})); sys.exit(0)
code = sum(len(str(cell.get("source", ""))) for cell in data["cells"]
           if isinstance(cell, dict) and cell.get("cell_type") == "code")
if code > int(sys.argv[4]):
    print(json.dumps({"error": "code", "count": code})); sys.exit(0)

def kept(cell):
    if not isinstance(cell, dict):
        return None  # skipped by extract, kept so that cells keep their positions
    out = {key: cell[key] for key in ("cell_type", "id") if isinstance(cell.get(key), str)
           and len(cell[key]) <= 100}
    meta = cell.get("metadata")
    if isinstance(meta, dict):
        out["metadata"] = {}
        if "nbgrader" in meta and len(json.dumps(meta["nbgrader"])) <= 10000:
            out["metadata"]["nbgrader"] = meta["nbgrader"]
    elif "metadata" in cell and (meta is None or isinstance(meta, (int, float, bool))):
        out["metadata"] = meta
    source = cell.get("source", "")
    out["source"] = source if cell.get("cell_type") == "code" else ""
    if cell.get("cell_type") == "code":
        out["outputs"], out["execution_count"] = [], None
    return out

version = {key: data[key] for key in ("nbformat", "nbformat_minor")
           if isinstance(data.get(key), int) and not isinstance(data.get(key), bool)}
print(json.dumps({**version, "metadata": {}, "cells": [kept(cell) for cell in data["cells"]]}))
"""


def open_checked(path: Path, limit: int = MAX_NOTEBOOK_BYTES) -> int:
    """An open descriptor of a regular file of at most `limit` bytes, checked with lstat
    before it is opened: a symbolic link, a folder, a FIFO or device, or a larger (or sparse)
    file is refused with NotebookRefused without reading a byte of it."""
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
    opened = os.fstat(descriptor)
    if (opened.st_dev, opened.st_ino) != (info.st_dev, info.st_ino) \
            or not stat.S_ISREG(opened.st_mode) or opened.st_size > limit:
        os.close(descriptor)
        raise NotebookRefused(f"{path} changed while it was being read")
    return descriptor


def read_notebook(path: Path) -> nbformat.NotebookNode:
    """The parts of a notebook file that grading uses, parsed under the PARSER limits."""
    path = Path(path)
    descriptor = open_checked(path)
    try:
        done = subprocess.run(
            [sys.executable, "-I", "-S", "-c", PARSER, str(MAX_NOTEBOOK_BYTES),
             str(PARSER_MEMORY_BYTES), str(PARSER_CPU_SECONDS), str(MAX_CODE_CHARACTERS),
             str(MAX_CELLS)],
            stdin=descriptor, capture_output=True, timeout=PARSER_CPU_SECONDS * 3)
    except subprocess.TimeoutExpired:
        done = None
    finally:
        os.close(descriptor)
    if done is None or done.returncode != 0:
        raise NotebookRefused(f"{path} could not be read within the grader's limits for "
                              f"reading a notebook ({PARSER_MEMORY_BYTES // 2**20} MiB of "
                              f"memory, {PARSER_CPU_SECONDS} s): its JSON is too deeply "
                              "structured")
    answer = json.loads(done.stdout)
    error = answer.get("error")
    if error == "large":
        raise NotebookRefused(f"{path} is larger than {MAX_NOTEBOOK_BYTES // 2**20} MiB")
    if error == "many":
        raise NotebookRefused(f"{path} holds {answer['count']} cells, more than the "
                              f"{MAX_CELLS} the grader reads; remove the cells you added")
    if error == "code":
        raise NotebookRefused(f"{path} holds {answer['count'] // 2**20} MiB of code, more than "
                              f"the {MAX_CODE_CHARACTERS // 2**20} MiB the grader reads; remove "
                              "the large cells")
    if error == "json":
        raise NotebookError(f"{path} is not a notebook: it is not valid JSON")
    if error:
        raise NotebookError(f"{path} is not a notebook: it has no list of cells")
    try:
        return nbformat.reads(done.stdout.decode("utf-8"), as_version=4)
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
