"""The grader's worker processes: which are running, how they are ended, and the orphans
they leave (an unisolated worker's descendants that escaped its process group)."""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import threading
from pathlib import Path

from .sandbox.backstop import cpu_seconds, stat_fields

live: set[subprocess.Popen] = set()
live_lock = threading.Lock()
stopping = threading.Event()


def stop_all() -> None:
    """Kill every sandbox that is running and refuse to start new ones (on Ctrl-C)."""
    stopping.set()
    with live_lock:
        for process in list(live):
            kill_group(process)


def kill_group(process: subprocess.Popen) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


reaping = False


def become_subreaper() -> bool:
    """Make this process adopt orphans of its children (Linux), so that they are ended and
    reaped after each job (`reap_orphans`): an unisolated worker's descendants that escaped
    its process group (left to init, they would count against the machine's processes where
    init never reaps). Under bubblewrap the worker's relay is the sandbox's first process
    (`bwrap --as-pid-1`), which bubblewrap waits for, so nothing of a sandbox should be left.
    Process-wide, so only the command line turns it on."""
    global reaping
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        reaping = libc.prctl(36, 1, 0, 0, 0) == 0  # PR_SET_CHILD_SUBREAPER
    except (OSError, AttributeError):
        reaping = False
    return reaping


def reap_orphans() -> int:
    """Kill and reap adopted processes that are not a running sandbox; return how many.

    A child in this process's own session is one this process started itself (a notebook
    parser, a look at bubblewrap), never an orphan: sandboxes start sessions of their own and
    nothing in them can join another session. Those are left to whoever waits for them."""
    me = os.getpid()
    session = str(os.getsid(0)).encode()
    with live_lock:
        known = {process.pid for process in live}
        killed = 0
        for pid in _children(me) - known:
            fields = stat_fields(pid)  # still our child: its number cannot have been reused
            if fields is not None and len(fields) > 3 and fields[1] == str(me).encode() \
                    and fields[3] != session:
                try:
                    os.kill(pid, signal.SIGKILL)
                    os.waitpid(pid, 0)
                    killed += 1
                except (ProcessLookupError, ChildProcessError, PermissionError):
                    pass
    return killed


def _children(me: int) -> set[int]:
    """This process's children, from the list /proc keeps for each of its threads (an adopted
    process is listed under one of them); from a scan of all of /proc where there is no such
    list (a kernel without CONFIG_PROC_CHILDREN)."""
    found: set[int] = set()
    if os.path.exists(f"/proc/self/task/{me}/children"):
        try:
            threads = os.listdir("/proc/self/task")
        except OSError:
            threads = [str(me)]
        for thread in threads:
            try:
                with open(f"/proc/self/task/{thread}/children", "rb") as listing:
                    found.update(int(pid) for pid in listing.read().split())
            except (OSError, ValueError):
                continue  # a thread that ended meanwhile: its children moved to another
        return found
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            fields = stat_fields(entry.name)
            if fields is not None and len(fields) > 1 and fields[1] == str(me).encode():
                found.add(int(entry.name))
    return found


def tree_cpu(root: int) -> float | None:
    """CPU seconds used so far by process `root` and its descendants (with the children they
    have already waited for), from /proc; None when `root` cannot be seen there."""
    parents: dict[int, int] = {}
    used: dict[int, float] = {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return None
    for name in entries:
        if not name.isdigit():
            continue
        fields = stat_fields(name)
        try:
            if fields is not None:
                parents[int(name)] = int(fields[1])
                used[int(name)] = cpu_seconds(fields, children=True)
        except (IndexError, ValueError):
            continue
    if root not in used:
        return None
    children: dict[int, list[int]] = {}
    for pid, parent in parents.items():
        children.setdefault(parent, []).append(pid)
    total, todo, seen = 0.0, [root], set()
    while todo:
        pid = todo.pop()
        if pid in seen:
            continue
        seen.add(pid)
        total += used.get(pid, 0.0)
        todo.extend(children.get(pid, ()))
    return total


def tasks_of_uid(uid: int, leaving_out: set[int] | frozenset[int] = frozenset()) -> int | None:
    """How many tasks (processes and their threads, as RLIMIT_NPROC counts them) run with the
    real uid `uid`, of those /proc shows, leaving out the processes `leaving_out` and every
    process under them; None where there is no /proc to read (not Linux)."""
    try:
        names = os.listdir("/proc")
    except OSError:
        return None
    tasks: dict[int, tuple[int, int]] = {}  # pid -> (parent, threads), of `uid`'s processes
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/status", "rb") as status:
                fields = dict(line.split(b":", 1) for line in status.read().splitlines()
                              if b":" in line)
            if int(fields[b"Uid"].split()[0]) == uid:
                tasks[int(name)] = (int(fields[b"PPid"]), int(fields[b"Threads"]))
        except (OSError, KeyError, IndexError, ValueError):
            continue  # ended meanwhile, or a status file of another layout
    children: dict[int, list[int]] = {}
    for pid, (parent, _) in tasks.items():
        children.setdefault(parent, []).append(pid)
    todo, left_out = list(leaving_out), set()
    while todo:
        pid = todo.pop()
        if pid not in left_out:
            left_out.add(pid)
            todo += children.get(pid, ())
    return sum(threads for pid, (_, threads) in tasks.items() if pid not in left_out)


def running_sandboxes() -> frozenset[int]:
    """The process ids of the workers running now (each the first process of a sandbox)."""
    with live_lock:
        return frozenset(process.pid for process in live)
