"""The grader's worker processes: which are running, how they are ended, and the orphans
they leave (an unisolated worker's descendants that escaped its process group)."""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import threading
from collections.abc import Iterable
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
    tasks = _processes_of_uid(uid)
    if tasks is None:
        return None
    left_out = set().union(*_trees(tasks, leaving_out).values())
    return sum(threads for pid, (_, threads) in tasks.items() if pid not in left_out)


def _processes_of_uid(uid: int) -> dict[int, tuple[int, int]] | None:
    """pid -> (parent, threads) of every process of the real uid `uid` that /proc shows; None
    where there is no /proc to read (not Linux)."""
    try:
        names = os.listdir("/proc")
    except OSError:
        return None
    tasks: dict[int, tuple[int, int]] = {}
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
    return tasks


def _trees(tasks: dict[int, tuple[int, int]],
           roots: Iterable[int]) -> dict[int, set[int]]:
    """Each of `roots` with every process under it, of `tasks` (pid -> (parent, threads))."""
    children: dict[int, list[int]] = {}
    for pid, (parent, _) in tasks.items():
        children.setdefault(parent, []).append(pid)
    trees = {}
    for root in roots:
        todo, tree = [root], set()
        while todo:
            pid = todo.pop()
            if pid not in tree:
                tree.add(pid)
                todo += children.get(pid, ())
        trees[root] = tree
    return trees


def running_sandboxes() -> frozenset[int]:
    """The process ids of the workers running now (each the first process of a sandbox)."""
    with live_lock:
        return frozenset(process.pid for process in live)


# -- sandboxes whose processes count against one uid: the grader's own ----------------------
# Run by an ordinary user without bubblewrap, every notebook runs as the user's uid, and the
# kernel stops a fork of a sandbox when that uid holds its RLIMIT_NPROC: a share that every
# sandbox running then draws on (isolation.shared_process_limit). While the grader runs two or
# more of them, it looks at the uid's tasks every SAMPLE_EVERY seconds: a sandbox that saw its
# share (nearly) filled by another was crowded out, and what its own code could not start
# then says nothing of the notebook (grading.CROWDED). One look reads /proc/*/status, about
# 2 ms per 100 processes of the machine; nothing of this runs anywhere else.
SAMPLE_EVERY = 0.2


class _Watched:
    __slots__ = ("limit", "full_at", "own", "crowded", "pressed")

    def __init__(self, limit: int, own: int) -> None:
        self.limit = limit  # its RLIMIT_NPROC, which counts the uid's tasks
        self.full_at = limit - own // 4  # the uid's task count from which its share is full
        self.own = own  # the processes it would have with a uid of its own
        self.crowded = False  # another filled its share (nearly): fewer than own // 4 left
        self.pressed = False  # others held much of it: fewer than `own` left, itself little


class Share:
    """What a look at the uid's tasks saw of one sandbox's share while it ran (`unwatch`)."""
    __slots__ = ("crowded", "pressed")

    def __init__(self, crowded: bool = False, pressed: bool = False) -> None:
        self.crowded, self.pressed = crowded, pressed


_watched: dict[int, _Watched] = {}
_watched_lock = threading.Lock()
_sampler: threading.Thread | None = None


def watch(pid: int, limit: int, own: int) -> None:
    """Watch the running sandbox `pid`, whose RLIMIT_NPROC `limit` counts the grader's uid's
    tasks, until `unwatch`: its share counts as nearly full when fewer than a quarter of `own`
    (the process limit it would have with a uid of its own) are left below `limit`."""
    global _sampler
    with _watched_lock:
        _watched[pid] = _Watched(limit, own)
        if _sampler is None and len(_watched) > 1:  # one sandbox alone crowds out no other
            sampler = threading.Thread(target=_sample_while_watched, daemon=True,
                                       name="process share")
            try:
                sampler.start()
            except RuntimeError:  # the user has no process left for it: the next watch tries
                return
            _sampler = sampler


def unwatch(pid: int) -> Share:
    """Stop watching the sandbox `pid`: whether, while it ran, another sandbox held (nearly)
    all of its share of the uid's processes (`crowded`), or others held most of it while it
    held little itself (`pressed`: only then can what its own results say of a thread or
    process that could not start be true, grading._crowded_out)."""
    with _watched_lock:
        watched = _watched.pop(pid, None)
    if watched is None:
        return Share()
    return Share(watched.crowded, watched.crowded or watched.pressed)


def _sample_while_watched() -> None:
    global _sampler
    while not stopping.wait(SAMPLE_EVERY):
        with _watched_lock:
            if len(_watched) < 2:
                _sampler = None
                return
        sample_share()
    with _watched_lock:
        _sampler = None


def sample_share() -> None:
    """Look once at the uid's tasks: every watched sandbox whose share they (nearly) fill is
    crowded, unless it holds more than it would with a uid of its own (it filled the share
    itself); one that has fewer than that many left below its limit, while it holds at most a
    quarter of them itself, is pressed. A notebook can make this look at nothing but its own
    processes: it can have classmates graded again alone, never a point of its own or
    theirs."""
    with _watched_lock:
        watched = dict(_watched)
    tasks = _processes_of_uid(os.getuid()) if watched else None
    if not tasks:
        return
    total = sum(threads for _, threads in tasks.values())
    near = [pid for pid, entry in watched.items() if total >= entry.limit - entry.own]
    if not near:
        return
    held = {root: sum(tasks[pid][1] for pid in tree if pid in tasks)
            for root, tree in _trees(tasks, near).items()}
    with _watched_lock:
        for pid in near:
            entry = watched[pid]
            if pid not in _watched:
                continue
            if total >= entry.full_at and held[pid] <= entry.own:
                _watched[pid].crowded = True
            if held[pid] <= entry.own // 4:
                _watched[pid].pressed = True
