"""The parts of a notebook's JSON that grading uses, from untrusted bytes.

Standard library only, so that it also runs as a script in a short-lived child process with
limits of its own (`python -I -S notebook_json.py TASK LIMIT MEMORY CPU CODE CELLS` with the
file on stdin): parsing JSON costs memory and time that grow with its structure, not only its
size (19 MiB of "{}," become 3.8 GB of Python objects), so the grader parses large files only
there. For the task "prune", what comes back is each cell's type, its code, its nbgrader
metadata (the entries of nbgrader's schema whose values are scalars) and id, for at most
MAX_CELLS cells and MAX_CODE_CHARACTERS of code; for "values", how many JSON values the file
holds (what a reader that keeps all of it, such as nbformat, pays for); or {"error": ...}.
"""

from __future__ import annotations

import json
import sys

# The entries of nbgrader's cell metadata (its schema allows no others), each a number, a
# string, a boolean or null. Only those are kept: what the grader parses of a cell's metadata
# is then a few values, whatever a file holds there (2,700 cells whose metadata held nested
# lists, 19 MiB in all, took the grader's memory to 545 MiB).
NBGRADER_KEYS = ("schema_version", "grade", "locked", "solution", "task", "grade_id",
                 "points", "checksum", "cell_type")
SCALARS = (str, int, float, bool, type(None))


def _nbgrader(meta: object) -> object:
    """A cell's nbgrader metadata as grading reads it: a dict's nbgrader entries whose values
    are scalars, a scalar as it is, anything else None (no nbgrader metadata)."""
    if isinstance(meta, dict):
        return {key: meta[key] for key in NBGRADER_KEYS
                if key in meta and isinstance(meta[key], SCALARS)}
    return meta if isinstance(meta, SCALARS) else None


def _kept(cell: object) -> dict | None:
    if not isinstance(cell, dict):
        return None  # skipped by extract, kept so that cells keep their positions
    out = {key: cell[key] for key in ("cell_type", "id") if isinstance(cell.get(key), str)
           and len(cell[key]) <= 100}
    meta = cell.get("metadata")
    if isinstance(meta, dict):
        out["metadata"] = {}
        if "nbgrader" in meta and len(json.dumps(meta["nbgrader"])) <= 10000:
            out["metadata"]["nbgrader"] = _nbgrader(meta["nbgrader"])
    elif "metadata" in cell and (meta is None or isinstance(meta, (int, float, bool))):
        out["metadata"] = meta
    out["source"] = cell.get("source", "") if cell.get("cell_type") == "code" else ""
    if cell.get("cell_type") == "code":
        out["outputs"], out["execution_count"] = [], None
    return out


def prune(raw: bytes, limit: int, code_limit: int, cell_limit: int) -> dict:
    """The notebook document reduced to what grading uses, or {"error": kind, ...}."""
    return answer("prune", raw, limit, code_limit, cell_limit)


def answer(task: str, raw: bytes, limit: int, code_limit: int, most: int) -> dict:
    """The answer to `task` for a file's bytes: for "prune", the document reduced to what
    grading uses (at most `most` cells and `code_limit` characters of code); for "values",
    {"values": how many JSON values it holds, counted up to `most` + 1}; or {"error": kind}."""
    if len(raw) > limit:
        return {"error": "large"}
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return {"error": "json"}
    if task == "values":
        return {"values": _values(data, most)}
    if not isinstance(data, dict) or not isinstance(data.get("cells"), list):
        return {"error": "cells"}
    cells = data["cells"]
    if len(cells) > most:
        return {"error": "many", "count": len(cells)}
    code = sum(len(str(cell.get("source", ""))) for cell in cells
               if isinstance(cell, dict) and cell.get("cell_type") == "code")
    if code > code_limit:
        return {"error": "code", "count": code}
    version = {key: data[key] for key in ("nbformat", "nbformat_minor")
               if isinstance(data.get(key), int) and not isinstance(data.get(key), bool)}
    return {**version, "metadata": {}, "cells": [_kept(cell) for cell in cells]}


def _values(data: object, most: int) -> int:
    """How many JSON values (containers, their items and keys) `data` holds, up to `most` + 1."""
    count, waiting = 0, [data]
    while waiting and count <= most:
        value = waiting.pop()
        count += 1
        if type(value) is dict:
            count += len(value)
            waiting.extend(value.values())
        elif type(value) is list:
            waiting.extend(value)
    return count


def main(argv: list[str]) -> int:
    import resource

    task = argv[1]
    limit, memory, cpu, code_limit, cell_limit = (int(value) for value in argv[2:7])
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    raw = sys.stdin.buffer.read(limit + 1)
    sys.stdout.write(json.dumps(answer(task, raw, limit, code_limit, cell_limit)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
