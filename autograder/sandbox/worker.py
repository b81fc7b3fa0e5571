"""The process that runs one student notebook's code inside the sandbox.

Protocol: the job arrives as one JSON document on standard input:
  {"prelude": [source, ...],                  # trusted setup cells from solutions/
   "cells": [{"label": str, "source": str}],  # the student's code, in notebook order
   "cases": [{"id": str, "probe": str, "target": str|None,
              "args": [plain], "kwargs": {name: plain}, "timeout": float}],
   "cell_timeout": float}
and results leave as JSON lines on the file descriptor named by --results-fd:
  {"event": "cell", "label": str, "error": {...}}   # a cell that raised or ran too long
  {"event": "case", "id": str, "outcome": {...}}
  {"event": "done"}
Student output goes to the ordinary stdout and stderr, which the parent caps.
Run it as `python -I -m sandbox.worker --results-fd N [--uid U]` with this package's parent on
sys.path. Started as root, it switches to uid U (default 65534) before any notebook code runs;
the runner gives every sandbox a uid of its own, so per-user limits such as the process count
cannot be exhausted by one submission for another.
"""

from __future__ import annotations

import builtins
import io
import json
import os
import sys

from .harness import run_case, run_notebook_code

UNPRIVILEGED = 65534  # "nobody", when the parent names no uid of its own for this run


def drop_privileges(uid: int = UNPRIVILEGED) -> None:
    """Never run student code as root, even inside the sandbox."""
    if os.geteuid() == 0:
        os.setgroups([])
        os.setgid(uid)
        os.setuid(uid)


def main(argv: list[str]) -> int:
    fd = int(argv[argv.index("--results-fd") + 1])
    channel = os.fdopen(fd, "w", buffering=1, encoding="utf-8", closefd=True)
    # Keep our own references: student code may replace module attributes later.
    write, dumps, flush = channel.write, json.dumps, channel.flush

    def emit(record: dict) -> None:
        try:
            write(dumps(record) + "\n")
            flush()
        except (OSError, ValueError, TypeError):
            pass

    job = json.loads(sys.stdin.read())
    sys.stdin = io.StringIO("")
    if os.environ.get("AUTOGRADER_KEEP_PRIVILEGES") != "1":
        uid = int(argv[argv.index("--uid") + 1]) if "--uid" in argv else UNPRIVILEGED
        drop_privileges(uid)

    namespace: dict = {"__name__": "__main__", "__builtins__": builtins}
    cell_timeout = float(job.get("cell_timeout", 10.0))
    cells = run_notebook_code(namespace, job.get("prelude", []), job.get("cells", []),
                              cell_timeout)
    for label, error in cells:
        emit({"event": "cell", "label": label, "error": error})
    for case in job.get("cases", []):
        emit({"event": "case", "id": case["id"], "outcome": run_case(namespace, case)})
    emit({"event": "done"})
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
