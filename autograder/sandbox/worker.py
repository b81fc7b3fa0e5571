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
import stat
import sys

from .harness import run_case, run_notebook_code

UNPRIVILEGED = 65534  # "nobody", when the parent names no uid of its own for this run


def drop_privileges(uid: int = UNPRIVILEGED) -> None:
    """Never run student code as root, even inside the sandbox."""
    if os.geteuid() == 0:
        reachable = keep_imports_reachable(uid)
        os.setgroups([])
        os.setgid(uid)
        os.setuid(uid)
        if not reachable:
            _allow_own_fd_links()


def _reachable(path: str, uid: int) -> bool:
    """Whether `uid`, with no groups, can list `path` and every folder above it."""
    try:
        parts = os.path.realpath(path).split("/")
        for depth in range(1, len(parts) + 1):
            folder = "/".join(parts[:depth]) or "/"
            status = os.stat(folder)
            if status.st_uid == uid:
                continue
            needed = stat.S_IXOTH | (stat.S_IROTH if depth == len(parts) else 0)
            if status.st_mode & needed != needed:
                return False
    except OSError:
        return True  # a folder that does not exist is no different after the switch
    return True


def keep_imports_reachable(uid: int) -> bool:
    """Before switching to `uid`: make every import folder usable by it; True when nothing
    needed changing.

    Without bubblewrap the interpreter may live where an unprivileged uid cannot look (Python
    installed under /root, for example), and notebook code would then fail to import `heapq`
    or `sqlite3` although the same notebook imports them in the sandbox. Such a folder is
    opened now, while it still can be, and used through /proc/self/fd/N: a path through an
    open folder is checked from that folder down, not from /. Packages imported already get
    the same treatment, so their submodules stay importable too. Grading then sees the same
    standard library in every sandbox mode.
    """
    opened: dict[str, str] = {}

    def through_fd(entry: object) -> object:
        if not isinstance(entry, str) or not entry or not os.path.isdir(entry):
            return entry
        real = os.path.realpath(entry)
        if real in opened:
            return opened[real]
        if _reachable(real, uid):
            return entry
        try:
            fd = os.open(real, os.O_RDONLY | os.O_DIRECTORY)
        except OSError:
            return entry
        opened[real] = f"/proc/self/fd/{fd}"
        return opened[real]

    sys.path[:] = [through_fd(entry) for entry in sys.path]
    for module in list(sys.modules.values()):
        search = getattr(module, "__path__", None)
        if isinstance(search, list):
            search[:] = [through_fd(entry) for entry in search]
    if opened:
        sys.path_importer_cache.clear()
    return not opened


def _allow_own_fd_links() -> None:
    """Switching uid makes a process non-dumpable, which hides /proc/self/fd from itself;
    make it dumpable again (only processes of its own new uid could then look at it)."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(4, 1, 0, 0, 0)  # PR_SET_DUMPABLE


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
