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
import threading
from dataclasses import dataclass, field
from pathlib import Path

from . import escape, notebook_json
from .reference import answer_cell_ids, nbgrader_meta, setup_sources
from .rubric import Exercise
from .sandbox import protocol

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
    cells: list[protocol.Cell]
    problems: list[str] = field(default_factory=list)


# Large files are parsed in a child process under these limits (see notebook_json.py); a file
# of up to IN_PROCESS_BYTES (a handed-in lab with its figures) costs at most about 30 MiB and
# a tenth of a second to parse here, whatever its structure, and saves starting a process.
PARSER_MEMORY_BYTES = 768 * 2**20
PARSER_CPU_SECONDS = 10
IN_PROCESS_BYTES = 2**20
PARSER = Path(__file__).resolve().parent / "notebook_json.py"
# A notebook that is not plainly version 4 is read by nbformat, which compiles its schema
# validator on first use (about 30 ms). Such notebooks are read one at a time, so that grading
# threads starting together wait for one compilation instead of each doing its own; reading is
# Python code under one lock (the GIL) anyway.
_READING = threading.Lock()


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


def read_notebook(path: Path) -> dict:
    """The parts of a notebook file that grading uses, parsed within bounded memory and time,
    as nbformat reads them (a dict whose "cells" are dicts, each code cell's source one str)."""
    path = Path(path)
    answer = _parsed(path, "prune", MAX_CELLS)
    error = answer.get("error")
    if error == "large":
        raise NotebookRefused(f"{path} grew while it was being read")
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
    plain = plain_version_4(answer)
    if plain is not None:
        return plain
    try:
        import nbformat  # only for documents that are not plainly version 4: its rules decide

        with _READING:
            return nbformat.reads(json.dumps(answer), as_version=4)
    except Exception as error:  # nbformat raises several types for malformed documents
        raise NotebookError(f"{path} is not a readable notebook ({error})") from None


def count_values(path: Path, most: int) -> int:
    """How many JSON values (containers, their items and keys) a notebook file holds, counted
    up to `most` + 1, within the bounds of `read_notebook`, which refuses the same files: a
    NotebookRefused for a file it will not read or could not parse within them, a NotebookError
    for one that is not JSON."""
    path = Path(path)
    answer = _parsed(path, "values", most)
    if "values" in answer:
        return int(answer["values"])
    if answer.get("error") == "large":
        raise NotebookRefused(f"{path} grew while it was being read")
    raise NotebookError(f"{path} is not a notebook: it is not valid JSON")


def _parsed(path: Path, task: str, most: int) -> dict:
    """notebook_json's answer to `task` ("prune" with at most `most` cells, or "values" up to
    `most`) for the file: worked out here for a file of at most IN_PROCESS_BYTES, else in a
    child process under PARSER_MEMORY_BYTES and PARSER_CPU_SECONDS."""
    descriptor = open_checked(path)
    try:
        if os.fstat(descriptor).st_size <= IN_PROCESS_BYTES:
            raw = b""
            while len(raw) <= IN_PROCESS_BYTES:
                chunk = os.read(descriptor, IN_PROCESS_BYTES + 1 - len(raw))
                if not chunk:
                    break
                raw += chunk
            return notebook_json.answer(task, raw, IN_PROCESS_BYTES, MAX_CODE_CHARACTERS, most)
        return _parse_in_child(path, descriptor, task, most)
    finally:
        os.close(descriptor)


def plain_version_4(document: dict) -> dict | None:
    """`document` (what notebook_json.prune kept) as `nbformat.reads(..., as_version=4)` returns
    it, when it is a version 4 notebook whose every cell is a dict with a metadata dict and a
    source of text (a str, or a list of str): nbformat then changes nothing grading uses but
    joining a list of lines into one str (its validation only logs, its normalising only gives
    cells new ids). Such is every notebook Jupyter saves. None for any other document, which
    nbformat reads itself, so that what it refuses is refused the same way (test_notebook_reading
    holds the two readings equal). Saves importing nbformat and compiling its validator in
    every grading process."""
    if document.get("nbformat") != 4:
        return None
    cells = document["cells"]
    for cell in cells:
        if type(cell) is not dict or type(cell.get("metadata")) is not dict:
            return None
        source = cell.get("source")
        if type(source) is list:
            if not all(type(line) is str for line in source):
                return None
        elif type(source) is not str:
            return None
    for cell in cells:
        if type(cell["source"]) is list:
            cell["source"] = "".join(cell["source"])
    return document


def _parse_in_child(path: Path, descriptor: int, task: str, most: int) -> dict:
    try:
        done = subprocess.run(
            [sys.executable, "-I", "-S", str(PARSER), task, str(MAX_NOTEBOOK_BYTES),
             str(PARSER_MEMORY_BYTES), str(PARSER_CPU_SECONDS), str(MAX_CODE_CHARACTERS),
             str(most)],
            stdin=descriptor, capture_output=True, timeout=PARSER_CPU_SECONDS * 3)
    except subprocess.TimeoutExpired:
        done = None
    if done is None or done.returncode != 0:
        raise NotebookRefused(f"{path} could not be read within the grader's limits for "
                              f"reading a notebook ({PARSER_MEMORY_BYTES // 2**20} MiB of "
                              f"memory, {PARSER_CPU_SECONDS} s): its JSON is too deeply "
                              "structured")
    return json.loads(done.stdout)


def extract(notebook: dict, exercise: Exercise) -> Extracted:
    """The code to run for `exercise`: trusted prelude, then the student's cells in order."""
    expected = answer_cell_ids(exercise)
    result = Extracted(prelude=list(setup_sources(exercise)), cells=[])
    seen: dict[str, int] = {}
    for position, cell in enumerate(notebook["cells"], start=1):
        if not isinstance(cell, dict):
            continue
        meta = nbgrader_meta(cell) if isinstance(cell.get("metadata"), dict) else {}
        grade_id = meta.get("grade_id") if isinstance(meta, dict) else None
        source = cell.get("source", "")
        source = "".join(source) if isinstance(source, list) else str(source)
        if grade_id in expected:
            seen[grade_id] = seen.get(grade_id, 0) + 1
            if seen[grade_id] > 1:
                continue  # said once below, however many copies there are
            if cell.get("cell_type") != "code":
                result.problems.append(
                    f"the answer cell {grade_id!r} was changed into a "
                    f"{escape.one_line(cell.get('cell_type'), 40)} cell, so its code was not "
                    "run; change it back to a code cell")
                continue
            result.cells.append({"label": f"answer cell {grade_id}", "source": source})
        elif not meta and cell.get("cell_type") == "code":
            result.cells.append({"label": f"your cell {position}", "source": source})
    for grade_id in expected:
        if seen.get(grade_id, 0) > 1:
            result.problems.append(
                f"the answer cell {grade_id!r} appears {seen[grade_id]:,} times; only its first "
                "copy was graded")
        elif grade_id not in seen:
            result.problems.append(
                f"the answer cell {grade_id!r} is missing (deleted, or its metadata was "
                "removed); fetch a fresh copy of the notebook and paste your code into it")
    return result
