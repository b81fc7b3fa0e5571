"""When the wall clock stops a step that has not reached its CPU-time limit.

Time limits are CPU time, so a saturated machine slows grading down without changing a
verdict. The wall clock is there for code that *waits* (sleeps, blocks on a lock, reads a pipe
that never speaks): it uses no CPU and would never reach its CPU limit. So when a step's
wall-clock backstop has passed, the step is asked how much CPU it used since the last look. A
step that used at least COMPUTING_SHARE of one core is computing, only slowly because other
processes want the CPU too; it gets another half backstop, and so on, up to CEILING times the
backstop. Its CPU limit ends it in any case. A step that used less is waiting, and is stopped.
Time a step's threads spent ready to run, waiting for a core that other processes held (their
run-queue delay, /proc/PID/task/TID/schedstat), counts as computing too: on a machine where
more than twenty processes want each core (a classmate's sandbox that starts its 64 processes,
each in a session and so a scheduling group of its own, where no control group caps it), a
step gets less than COMPUTING_SHARE of a core however hard it computes, and spends the rest
of its time there. A step that sleeps, blocks on a lock or reads a silent pipe is not ready to
run, so it gains nothing from this.

Used on three levels, each with the same rule: a step of notebook code inside its process
(harness.time_limit), a process of hidden tests watched by the notebook's process
(worker._watch_server), and the whole sandbox watched by the grader (runner.run).
"""

from __future__ import annotations

import os
import time

# Bound before any notebook code runs: a cell's own backstop reads its run-queue delay in the
# process that runs the cell, where code could replace os.listdir or open.
_listdir, _open = os.listdir, open

TYPE_CHECKING = False  # no import of typing in the sandbox at run time

if TYPE_CHECKING:
    from collections.abc import Callable

COMPUTING_SHARE = 0.05  # of one core: an idle wait uses about nothing, a loop on 20 busy cores 5%
CEILING = 3.0  # times the backstop: the latest a step that keeps computing is stopped anyway
_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


class Backstop:
    """The wall-clock deadline of one step, moved on while the step keeps computing.

    `cpu` returns the CPU seconds the step has used so far (any origin), or None when that
    cannot be known; then the first deadline is final. `queued` returns the seconds the step's
    threads have spent ready to run, waiting for a core (any origin; 0.0 where that cannot be
    known). With `fresh`, the step has only just started and both count from its start, so its
    first look is 0 and not taken (for a process tree, a look reads all of /proc)."""

    def __init__(self, seconds: float, cpu: Callable[[], float | None],
                 clock: Callable[[], float] = time.monotonic, fresh: bool = False,
                 queued: Callable[[], float] | None = None) -> None:
        self.seconds, self._cpu, self._clock = seconds, cpu, clock
        self._queued = queued or (lambda: 0.0)
        started = self.started = clock()
        self.deadline = started + seconds
        self._ceiling = started + seconds * CEILING
        self._look = (started, 0.0 if fresh else cpu(), 0.0 if fresh else self._queued())

    def elapsed(self) -> float:
        """Seconds since the step started."""
        return self._clock() - self.started

    def left(self) -> float:
        """Seconds until the deadline (negative once it has passed)."""
        return self.deadline - self._clock()

    def passed(self) -> bool:
        """True when the step must be stopped now. At or after the deadline, a step that used at
        least COMPUTING_SHARE of a core since the last look, or waited for one as long, gets a
        later deadline instead."""
        now = self._clock()
        if now < self.deadline:
            return False
        used, queued = self._cpu(), self._queued()
        since, before, queued_before = self._look
        # A thread or process that ended since the last look takes its wait with it: what was
        # waited never counts against the CPU the step used.
        waited = max(queued - queued_before, 0.0)
        if used is None or before is None or now >= self._ceiling \
                or used - before + waited < COMPUTING_SHARE * (now - since):
            return True
        self._look = (now, used, queued)
        self.deadline = min(now + max(self.seconds / 2, 1.0), self._ceiling)
        return False


def tree_cpu(pid: int) -> float | None:
    """CPU seconds of process `pid` and of every process under it, those still running and those
    waited for (from /proc: code under test that forks and computes in the child is counted as
    if it computed itself); None when `pid` cannot be read. Processes that ended before their
    parent waited for them, or whose parent ended, are not counted."""
    total = 0.0
    for current in tree(pid):
        fields = stat_fields(current)
        try:
            total += cpu_seconds(fields, children=True) if fields is not None else 0.0
        except (IndexError, ValueError):
            fields = None
        if fields is None and current == pid:
            return None
    return total


def adopted_cpu(pid: int, but: int) -> float:
    """CPU seconds of the processes under `pid` other than `but` and what is under it: for a
    subreaper `pid`, the orphans it adopted (a grandchild whose parent ended, computing for a
    hidden test outside that test's process tree) and what they started."""
    total = 0.0
    for child in _children(pid):
        if child != but:
            total += tree_cpu(child) or 0.0
    return total


def tree(pid: int) -> list[int]:
    """`pid` and every process under it, parents before their children."""
    found: list[int] = []
    todo, seen = [pid], set[int]()
    while todo:
        current = todo.pop()
        if current in seen or len(seen) > 4096:
            continue
        seen.add(current)
        found.append(current)
        todo += _children(current)
    return found


def _children(pid: int) -> list[int]:
    """The processes whose parent is `pid` (through /proc/PID/task/TID/children, or, where the
    kernel has no such file, by reading every process's parent)."""
    found: list[int] = []
    try:
        threads = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return found
    for thread in threads:
        try:
            with open(f"/proc/{pid}/task/{thread}/children", "rb") as listed:
                found += [int(child) for child in listed.read().split()]
        except FileNotFoundError:
            return _children_by_scan(pid)
        except (OSError, ValueError):
            continue
    return found


def _children_by_scan(pid: int) -> list[int]:
    found: list[int] = []
    try:
        names = os.listdir("/proc")
    except OSError:
        return found
    parent = str(pid).encode()
    for name in names:
        if name.isdigit():
            fields = stat_fields(name)
            if fields is not None and len(fields) > 1 and fields[1] == parent:
                found.append(int(name))
    return found


def stat_fields(pid: int | str) -> list[bytes] | None:
    """The fields of /proc/PID/stat after the command name (state, parent, ...: field 3 of
    proc(5) is index 0), or None when it cannot be read (no /proc, or the process is gone)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return stat.read().rsplit(b")", 1)[1].split()
    except (OSError, IndexError):
        return None


def cpu_seconds(fields: list[bytes], children: bool = False) -> float:
    """User and system CPU seconds of all the process's threads in `stat_fields`, with those of
    the children it has waited for when `children`."""
    return sum(int(value) for value in fields[11:15 if children else 13]) / _TICK


def queued_seconds(pid: int | str) -> float:
    """Seconds the threads of process `pid` have spent ready to run, waiting for a core (the
    second field of each thread's /proc/PID/task/TID/schedstat, in nanoseconds, which also
    holds the time a control group's CPU quota kept it off); 0.0 for what cannot be read (no
    /proc, a kernel without schedstat, a process that is gone)."""
    total = 0
    try:
        threads = _listdir(f"/proc/{pid}/task")
    except OSError:
        return 0.0
    for thread in threads:
        try:
            with _open(f"/proc/{pid}/task/{thread}/schedstat", "rb") as schedstat:
                total += int(schedstat.read().split()[1])
        except (OSError, IndexError, ValueError):
            continue
    return total / 1e9


def tree_queued(pid: int) -> float:
    """`queued_seconds` of process `pid` and of every process under it."""
    return sum(queued_seconds(current) for current in tree(pid))


def process_cpu(pid: int) -> float | None:
    """CPU seconds (user and system, all threads) of process `pid`, from /proc; None when it
    cannot be read."""
    fields = stat_fields(pid)
    try:
        return cpu_seconds(fields) if fields is not None else None
    except (IndexError, ValueError):
        return None
