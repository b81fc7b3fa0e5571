"""Control groups: a cap on the memory, the processes and the CPU share of one sandbox as a
whole (rlimits only cap each process), kept for the next sandbox once it is empty."""

from __future__ import annotations

import atexit
import logging
import os
import signal
import threading
import time
from pathlib import Path

from . import escape
from .setup_log import say_once

log = logging.getLogger(__name__)

CGROUP_ROOT = Path("/sys/fs/cgroup")


class Cgroup:
    """A control group capping the memory, the number of processes and the CPU share of one
    sandbox as a whole (rlimits only cap each process): at most `cpus` cores, and an equal
    weight beside every other sandbox, so that processes one submission starts cannot starve
    another's. Best effort: cgroup v1 or v2 when this process may create groups (root),
    otherwise nothing and the rlimits alone apply (time limits are CPU time either way)."""

    def __init__(self, memory_bytes: int, processes: int, cpus: float = 1.0) -> None:
        self.folders: list[Path] = []
        name = f"autograder-{os.getpid()}-{threading.get_ident()}-{time.monotonic_ns()}"
        if os.geteuid() != 0:
            say_once(log, logging.INFO, "cgroups: not root, so no control group per notebook: "
                      "only the per-process rlimits apply (memory, CPU time, file size)")
            return
        root = CGROUP_ROOT
        v2 = root / "unified" if (root / "unified" / "cgroup.controllers").is_file() else root
        controllers = v2 / "cgroup.subtree_control"
        period = 100_000  # microseconds
        quota = max(1000, int(period * cpus))
        try:
            enabled = set(controllers.read_text().split()) if controllers.is_file() else set()
            if {"memory", "pids"} <= enabled:
                limits: dict[str, int | str] = {"memory.max": memory_bytes,
                                                "memory.swap.max": 0, "pids.max": processes}
                if "cpu" in enabled:
                    limits.update({"cpu.max": f"{quota} {period}", "cpu.weight": 100})
                say_once(log, logging.INFO, f"cgroups: v2 at {v2}, controllers enabled: "
                          f"{' '.join(sorted(enabled))}; each notebook's group sets "
                          f"{', '.join(limits)}")
                self._make(v2 / name, limits)
            elif (root / "memory" / "cgroup.procs").is_file():
                hierarchies = ["memory"]
                self._make(root / "memory" / name, {"memory.limit_in_bytes": memory_bytes})
                if (root / "pids" / "cgroup.procs").is_file():
                    hierarchies.append("pids")
                    self._make(root / "pids" / name, {"pids.max": processes})
                if (root / "cpu" / "cgroup.procs").is_file():
                    hierarchies.append("cpu")
                    self._make(root / "cpu" / name,
                               {"cpu.cfs_period_us": period, "cpu.cfs_quota_us": quota,
                                "cpu.shares": 1024})
                say_once(log, logging.INFO, "cgroups: v1, a group per notebook in the "
                          f"{', '.join(hierarchies)} hierarchies")
            else:
                say_once(log, logging.WARNING, f"cgroups: none usable: {controllers} enables "
                          f"{' '.join(sorted(enabled)) or 'no controller'} (memory and pids "
                          "are needed) and there is no v1 memory hierarchy; only the "
                          "per-process rlimits apply")
        except OSError as error:
            # Said once per place and cause, not once per notebook (each group has its own name).
            where = f" in {Path(error.filename).parent}" if error.filename else ""
            why = escape.one_line(error.strerror or error, 300)
            say_once(log, logging.WARNING, f"cgroups: a control group could not be set up{where} "
                      f"({type(error).__name__}: {why}); notebooks graded without one get only "
                      "the per-process rlimits")
            self.remove()

    swept: set[Path] = set()

    def _make(self, folder: Path, limits: dict[str, int | str]) -> None:
        if folder.parent not in Cgroup.swept:  # groups of graders that were killed
            Cgroup.swept.add(folder.parent)
            for stale in folder.parent.glob("autograder-*"):
                owner = stale.name.split("-")[1]
                if owner.isdigit() and not Path(f"/proc/{owner}").exists():
                    try:
                        stale.rmdir()
                        log.debug("cgroups: removed %s, left by a grader that was killed",
                                  stale)
                    except OSError as error:
                        log.debug("cgroups: %s, left by a grader that was killed, could not "
                                  "be removed (%s)", stale, escape.one_line(error, 300))
        folder.mkdir()
        self.folders.append(folder)
        for key, value in limits.items():
            if (folder / key).exists():
                (folder / key).write_text(str(value))
            else:
                say_once(log, logging.DEBUG, f"cgroups: {folder.parent} has no {key}, so that "
                          "limit is not set")

    def wrap(self, command: list[str]) -> list[str]:
        """`command`, started from a shell that first moves itself into the groups."""
        if not self.folders:
            return command
        script = 'for f in "$@"; do [ "$f" = -- ] && break; echo $$ > "$f" || exit 125; ' \
                 'shift; done; shift; exec "$@"'
        procs = [str(folder / "cgroup.procs") for folder in self.folders]
        return ["/bin/sh", "-c", script, "sh", *procs, "--", *command]

    _spare: dict[tuple[int, int, float], list[Cgroup]] = {}
    _spare_lock = threading.Lock()
    SPARES = 8  # groups kept per set of limits, at most

    @classmethod
    def take(cls, memory_bytes: int, processes: int, cpus: float = 1.0) -> Cgroup:
        """An empty group with these limits: one a finished sandbox gave back, once nothing of
        that sandbox is left in it, or a new one (making and removing groups costs a sandbox's
        start-up a fifth again)."""
        key = (memory_bytes, processes, cpus)
        with cls._spare_lock:
            spares = cls._spare.get(key, [])
            for index, group in enumerate(spares):
                if group._empty():
                    return spares.pop(index)
            stale = spares[:-cls.SPARES] if len(spares) > cls.SPARES else []
            del spares[:len(stale)]
        for group in stale:  # never emptied: let them go
            group.remove()
        return cls(memory_bytes, processes, cpus)

    def give_back(self, key: tuple[int, int, float]) -> None:
        """End every process left in the group and keep it for a later sandbox, which takes it
        only once its last processes are gone (their ends are not waited for here)."""
        if not self.folders:
            return
        self._empty()  # kills what is left
        with Cgroup._spare_lock:
            Cgroup._spare.setdefault(key, []).append(self)

    def _empty(self) -> bool:
        """Whether nothing of the last sandbox is left in the group: no process (any that is,
        is killed), no process still counted against its process limit (a group whose count
        stayed up would refuse the next sandbox its first fork), and no shared memory charged to
        it (files in /dev/shm or System V segments that outlived their processes, which no
        reclaim frees: the next sandbox would have that much less of its memory limit)."""
        empty = True
        for folder in self.folders:
            try:
                for pid in (folder / "cgroup.procs").read_text().split():
                    empty = False
                    try:
                        os.kill(int(pid), signal.SIGKILL)
                    except ProcessLookupError:
                        pass
                counted = folder / "pids.current"
                if counted.is_file() and int(counted.read_text()) != 0:
                    empty = False
                if _shared_memory(folder):
                    empty = False
            except (OSError, ValueError):
                return False
        return empty

    @classmethod
    def remove_spares(cls) -> None:
        with cls._spare_lock:
            groups = [group for spare in cls._spare.values() for group in spare]
            cls._spare.clear()
        for group in groups:
            group.remove()

    def remove(self) -> None:
        for folder in self.folders:
            problem: OSError | None = None
            for _ in range(50):
                try:
                    for pid in (folder / "cgroup.procs").read_text().split():
                        try:
                            os.kill(int(pid), signal.SIGKILL)
                        except ProcessLookupError:
                            pass  # ended since the list was read
                    folder.rmdir()
                    problem = None
                    break
                except FileNotFoundError:
                    problem = None
                    break
                except OSError as error:  # processes still leaving the group
                    problem = error
                    time.sleep(0.01)
            if problem is not None:
                log.warning("cgroups: %s could not be removed (%s)", folder,
                            escape.one_line(problem, 300))
        self.folders = []


def _shared_memory(folder: Path) -> int:
    """Bytes of shared memory (tmpfs files, System V segments) charged to the group in
    `folder` (a memory hierarchy's; 0 for any other, which has no memory.stat)."""
    try:
        with open(folder / "memory.stat", encoding="ascii") as stat:
            for line in stat:
                name, _, value = line.partition(" ")
                if name == "shmem":
                    return int(value)
    except (OSError, ValueError):
        pass
    return 0


atexit.register(Cgroup.remove_spares)

