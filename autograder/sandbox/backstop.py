"""When the wall clock stops a step that has not reached its CPU-time limit.

Time limits are CPU time, so a saturated machine slows grading down without changing a
verdict. The wall clock is there for code that *waits* (sleeps, blocks on a lock, reads a pipe
that never speaks): it uses no CPU and would never reach its CPU limit. So when a step's
wall-clock backstop has passed, the step is asked how much CPU it used since the last look. A
step that used at least COMPUTING_SHARE of one core is computing, only slowly because other
processes want the CPU too; it gets another half backstop, and so on, up to CEILING times the
backstop. Its CPU limit ends it in any case. A step that used less is waiting, and is stopped.

Used on three levels, each with the same rule: a step of notebook code inside its process
(harness.time_limit), a process of hidden tests watched by the notebook's process
(worker._watch_server), and the whole sandbox watched by the grader (runner.run).
"""

from __future__ import annotations

import os
import time

TYPE_CHECKING = False  # no import of typing in the sandbox at run time

if TYPE_CHECKING:
    from collections.abc import Callable

COMPUTING_SHARE = 0.05  # of one core: an idle wait uses about nothing, a loop on 20 busy cores 5%
CEILING = 3.0  # times the backstop: the latest a step that keeps computing is stopped anyway
_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


class Backstop:
    """The wall-clock deadline of one step, moved on while the step keeps computing.

    `cpu` returns the CPU seconds the step has used so far (any origin), or None when that
    cannot be known; then the first deadline is final."""

    def __init__(self, seconds: float, cpu: Callable[[], float | None],
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.seconds, self._cpu, self._clock = seconds, cpu, clock
        started = clock()
        self.deadline = started + seconds
        self._ceiling = started + seconds * CEILING
        self._look = (started, cpu())

    def left(self) -> float:
        """Seconds until the deadline (negative once it has passed)."""
        return self.deadline - self._clock()

    def passed(self) -> bool:
        """True when the step must be stopped now. At or after the deadline, a step that used at
        least COMPUTING_SHARE of a core since the last look gets a later deadline instead."""
        now = self._clock()
        if now < self.deadline:
            return False
        used = self._cpu()
        since, before = self._look
        if used is None or before is None or now >= self._ceiling \
                or used - before < COMPUTING_SHARE * (now - since):
            return True
        self._look = (now, used)
        self.deadline = min(now + max(self.seconds / 2, 1.0), self._ceiling)
        return False


def process_cpu(pid: int) -> float | None:
    """CPU seconds (user and system, all threads) of process `pid`, from /proc; None when it
    cannot be read (no /proc, or the process is gone)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            fields = stat.read().rsplit(b")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / _TICK
    except (OSError, IndexError, ValueError):
        return None
