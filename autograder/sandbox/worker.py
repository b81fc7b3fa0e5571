"""The processes that run one student notebook's code inside the sandbox.

Protocol (typed in protocol.py): the job arrives as one JSON document on standard input:
  {"prelude": [source, ...],                  # trusted setup cells from solutions/
   "cells": [{"label": str, "source": str}],  # the student's code, in notebook order
   "cases": [{"id": str, "probe": str, "target": str|None,
              "args": [plain], "kwargs": {name: plain}, "timeout": float}],
   "cell_timeout": float,                     # CPU seconds per cell
   "cpu_budget": float,                       # CPU seconds for the whole notebook
   "processes": int}                          # processes and threads the sandbox may hold
and results leave as JSON lines on the file descriptor named by --results-fd:
  {"event": "cell", "label": str, "error": {...}}   # a cell that raised or ran too long
  {"event": "case", "id": str, "outcome": {...}}
  {"event": "flag", "text": str}                    # tampering the worker noticed
  {"event": "stopped", "why": "cpu"}                # the notebook's CPU budget ran out
  {"event": "fork_failed", "step": "notebook" | "tests", "errno": "EAGAIN" | "ENOMEM"}
                                                    # the grader could not start a process
  {"event": "done"}
Student output goes to the ordinary stdout and stderr, which the parent caps.
Run it as `python -I -m sandbox.worker --results-fd N [--uid U]` with this package's parent on
sys.path. Started as root, it switches to uid U (default 65534) before any notebook code runs;
the runner gives every sandbox a uid of its own, so per-user limits such as the process count
cannot be exhausted by one submission for another.

Three kinds of process, so that no notebook code ever shares a process with the results:
- the relay (this process; under bubblewrap, the sandbox's first process, which reaps
  whatever notebook code leaves behind) holds the results descriptor, never runs notebook
  code, and passes on only what it expects: each cell's error once, before the notebook
  process says that the hidden tests begin (once), and each hidden case's outcome once,
  after that. An outcome before the tests began, a second outcome for a case, an
  outcome whose case's process then ended abnormally, one for a case that does not exist, or
  a second start of the tests is forged: the case (for the last, every case) fails and the
  instructor is told. Notebook code that imitates this protocol exactly, with the right
  answers, and then ends its process before the real tests run is not told apart (every
  writer shares the channel), but it needs correct answers to gain anything. Where the
  notebook's uid is shared with the grader's other processes (run by an ordinary user without
  bubblewrap), the notebook process says, once, when it could not start a process for the
  tests while the sandbox held fewer than its process limit (others took them); the relay
  passes that on (notebook code can say it too, and gains one grading alone by it: the
  grader's batch grades such a notebook again, with nothing else running). Anywhere else such
  a report is forged, and flagged. When the relay's own fork of the notebook process fails,
  before any notebook code ran, it says so itself. As root the
  relay runs as a uid of its own (the notebook's plus RELAY_UIDS), so notebook code can
  neither stop nor kill it, nor look into its descriptors; run by an ordinary user it shares
  the notebook's uid, is non-dumpable, and under bubblewrap, as the sandbox's first process,
  takes no signal from notebook code;
- the notebook process, forked from it, keeps the hidden cases as text (which no code can
  change in place), runs the trusted setup cells, takes the guard's snapshot (guard.py),
  runs the student's cells, puts back whatever they rebound, and then
- forks a case server from that restored state, which runs the hidden cases one after the
  other, each with a CPU-time limit, and after each puts back whatever the code under test
  rebound of what the probes use (that case then fails). When a case ends the case server
  (an exit, a crash, a time-out that was swallowed), a fresh one continues with the next.
  The notebook process watches each server: it learns which case runs from a line the server
  writes before each one (in order: a line out of order was written by the code under test,
  and every case of the notebook then fails), and stops a case that waits past its wall-clock
  backstop or that used its CPU limit and CPU_GRACE more, counted from /proc, since the code
  under test can turn off its own timer and raise its own process's CPU limit.
"""

from __future__ import annotations

import builtins
import errno
import gc
import io
import math
import os
import resource
import select
import stat
import sys
import time

from . import guard, wire
from .backstop import Backstop, adopted_cpu, tree, tree_cpu, tree_queued
from .harness import StepTimeout, run_case, run_cell, signal, wall_backstop
from .probes import load as load_probes

TYPE_CHECKING = False  # no import of typing in the sandbox at run time

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import TypedDict

    from .protocol import Event, Job, Record, TestsRecord

    class _WatchState(TypedDict):
        current: int  # index of the case the server is on
        backstop: Backstop  # wall clock of that case, started when the server started it
        cpu: float  # the server's CPU seconds when it started that case, as it said
        base: float | None  # ... as this process read them (/proc), when it learnt of the case
        expected: int  # the index of the next progress line the server can write
        forged: bool  # a progress line out of that order: notebook code wrote it

        finished: bool
        buffer: bytes  # progress text not yet split into lines

UNPRIVILEGED = 65534  # "nobody", when the parent names no uid of its own for this run
RELAY_UIDS = 1_000_000  # the relay runs as the notebook's uid plus this
RECORD_CAP = 1024 * 1024  # bytes of one record from the notebook's processes
FLAG_CAP = 20  # flags passed on per notebook
RELAY_PAUSE = 0.005  # seconds the relay lets records gather after a read (see _relay)
WATCH_LOOK = 0.1  # seconds between the notebook process's looks at a case server's progress
# CPU seconds past a case's limit at which the notebook process stops its case server: the
# server's own timer and CPU limit end an honest case first (at the limit, and a second or two
# later), so this is reached only by code under test that turned those off.
CPU_GRACE = 2.5
# A fork that fails for want of processes (the uid's process limit, the machine's) or memory.
FORK_ERRORS = {errno.EAGAIN: "EAGAIN", errno.ENOMEM: "ENOMEM"}


def drop_privileges(uid: int, prctl: Callable, reachable: bool) -> None:
    """Never run student code as root, even inside the sandbox. `prctl`, from _libc_prctl;
    `reachable`, what keep_imports_reachable said before the fork."""
    if os.geteuid() == 0:
        os.setgroups([])
        os.setgid(uid)
        os.setuid(uid)
        if not reachable:
            _allow_own_fd_links(prctl)


def _reachable(path: str, uids: tuple[int, ...]) -> bool:
    """Whether each of `uids`, with no groups, can list `path` and every folder above it."""
    try:
        parts = os.path.realpath(path).split("/")
        for depth in range(1, len(parts) + 1):
            folder = "/".join(parts[:depth]) or "/"
            status = os.stat(folder)
            if all(status.st_uid == uid for uid in uids):
                continue
            needed = stat.S_IXOTH | (stat.S_IROTH if depth == len(parts) else 0)
            if status.st_mode & needed != needed:
                return False
    except OSError:
        return True  # a folder that does not exist is no different after the switch
    return True


def keep_imports_reachable(uids: tuple[int, ...]) -> bool:
    """Before switching to one of `uids` (the notebook's and the relay's, once, before the fork
    that makes their two processes): make every import folder usable by each; True when
    nothing needed changing.

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
        if _reachable(real, uids):
            return entry
        try:
            fd = os.open(real, os.O_RDONLY | os.O_DIRECTORY)
        except OSError:
            return entry
        opened[real] = f"/proc/self/fd/{fd}"
        return opened[real]

    # A str entry stays a str (itself, or the /proc/self/fd path that stands for it).
    sys.path[:] = [str(through_fd(entry)) for entry in sys.path]
    for module in list(sys.modules.values()):
        search = getattr(module, "__path__", None)
        if isinstance(search, list):
            search[:] = [through_fd(entry) for entry in search]
    if opened:
        sys.path_importer_cache.clear()
    return not opened


PR_SET_DUMPABLE = 4


def _allow_own_fd_links(prctl: Callable) -> None:
    """Switching uid makes a process non-dumpable, which hides /proc/self/fd from itself;
    make it dumpable again (only processes of its own new uid could then look at it)."""
    prctl(PR_SET_DUMPABLE, 1, 0, 0, 0)


def _confine(package: str) -> int:
    """Without bubblewrap: confine this process (the notebook's), and every process it starts,
    to bubblewrap's view of the file system with Landlock (sandbox/landlock.py), its scratch
    folder being the one that holds its working folder (ROOT/scratch/ASSIGNMENT, with ROOT's
    `data` link and `tmp`: runner._scratch_folder). Signals stay within this process's
    domain, which its forks share (restricted before any of them exists): it can still stop,
    end and watch its case servers, and a child it forks can end it. The ABI version used, 0
    where Landlock is missing."""
    from . import landlock

    here = os.getcwd()
    above = os.path.dirname(here)
    root = os.path.dirname(above) if os.path.basename(above) == "scratch" else here
    return landlock.confine(package, root)


def _filter_from(argv: list[str]) -> bytes:
    """The seccomp filter the grader passed on `--seccomp FD` (without bubblewrap only), read
    whole and its descriptor closed before any fork; empty when there is none."""
    if "--seccomp" not in argv:
        return b""
    from . import syscall_filter

    return syscall_filter.read(int(argv[argv.index("--seccomp") + 1]))


def _load_filter(program: bytes) -> bool:
    """Without bubblewrap: put the grader's seccomp filter (sandbox/syscall_filter.py) on this
    process, the notebook's, before any notebook code runs; every process it starts, every
    program it runs included, keeps it. None of them can then open a socket that reaches
    past the notebook (UDP, a unix socket bound to a path and, where Landlock is missing,
    TCP). Whether it was loaded."""
    from . import syscall_filter

    return syscall_filter.load(program)


def _orphan_adopter(prctl: Callable) -> Callable[[], None]:
    """A function that makes the notebook's process adopt the orphans of its descendants (a
    grandchild whose parent ended at once: a double fork), where they stay in its tree: ended
    before the tests and after each case server, and counted in the hidden tests' CPU. Left to
    the sandbox's first process or to init, such a helper could compute for a hidden test
    outside its CPU count. Not inherited by a fork: only this process adopts. The C function
    is held only in the returned function's defaults, which the guard keeps unreadable
    (`prctl`, from _libc_prctl)."""

    def adopt(_prctl: Callable = prctl) -> None:
        _prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER

    return adopt


def _libc_prctl() -> Callable:
    """libc's prctl, as `ctypes.CDLL(None, use_errno=True).prctl` finds it, made from _ctypes
    (ctypes' C module) alone: importing the ctypes package, and collecting it again, cost
    every sandbox about 2 ms of CPU. _ctypes is forgotten again (_forget_ctypes). The worker
    looks prctl up once, before it forks, for the relay and the notebook's process both."""
    import _ctypes

    class CInt(_ctypes._SimpleCData):  # ctypes.c_int, the result
        _type_ = "i"

    class Function(_ctypes.CFuncPtr):  # what CDLL makes for a function of libc
        _flags_ = _ctypes.FUNCFLAG_CDECL | _ctypes.FUNCFLAG_USE_ERRNO
        _restype_ = CInt

    class Program:  # the program's own symbols, libc's among them: CDLL(None)
        _handle = _ctypes.dlopen(None, _ctypes.RTLD_LOCAL)  # type: ignore[arg-type]

    call = Function(("prctl", Program()))  # type: ignore[arg-type]  # a CDLL for its _handle
    del _ctypes
    _forget_ctypes()
    return call


def _forget_ctypes() -> None:
    """Notebook code must meet the guard's refusal when it imports ctypes, not a module already
    loaded (an import of a loaded module raises no audit event). Where the ctypes package was
    loaded (the fallback's confinement uses it), what is left of it is collected too."""
    names = [name for name in sys.modules
             if name in ("ctypes", "_ctypes") or name.startswith("ctypes.")]
    for name in names:
        del sys.modules[name]
    if "ctypes" in names:
        gc.collect()


def main(argv: list[str]) -> int:
    fd = int(argv[argv.index("--results-fd") + 1])
    channel = os.fdopen(fd, "w", encoding="utf-8", closefd=True)
    pending: list[str] = []

    def emit(record: Event) -> None:
        try:
            pending.append(wire.dumps(record) + "\n")
        except (ValueError, TypeError):
            pass

    def deliver() -> None:
        """Write what `emit` gathered, at once: one write wakes the grader once."""
        try:
            channel.write("".join(pending))
            channel.flush()
        except (OSError, ValueError, TypeError):
            pass
        pending.clear()

    text = sys.stdin.read()
    job: Job = wire.loads(text)
    sys.stdin = io.StringIO("")
    # Only the probe modules this job's cases name, and before any notebook code runs.
    load_probes(case.get("probe", "") for case in job.get("cases", []))
    if '"zone"' in text:
        # The cases' time zones (plain.from_plain): imported now, so that the guard's snapshot
        # holds the real module and puts it back in sys.modules for the tests, whatever a cell
        # put there under its name.
        import zoneinfo  # noqa: F401
    del text
    uid = int(argv[argv.index("--uid") + 1]) if "--uid" in argv else UNPRIVILEGED
    program = _filter_from(argv)
    flush = _flusher()
    prctl = _libc_prctl()
    own_uid = os.geteuid() == 0  # the notebook gets a uid of its own, and a process limit
    if not own_uid:
        # The relay then shares the notebook's uid: it is made non-dumpable, so that no notebook
        # code can open its descriptors (/proc/PID/fd: the grader's results channel) or read
        # its memory. Before the fork, so that it never is while notebook code runs.
        prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    # Whether every other process of the notebook's uid is the notebook's own: as root (a uid of
    # its own), and where the relay is the first process of a process namespace of the
    # sandbox's own (bubblewrap), which then takes no signal from the notebook's processes.
    uid_is_its_own = own_uid or os.getpid() == 1
    relay_uid = uid + RELAY_UIDS if uid != UNPRIVILEGED else uid
    reachable = keep_imports_reachable((uid, relay_uid)) if own_uid else True
    reader, writer = os.pipe()
    _freeze()
    try:
        child = os.fork()
    except OSError as error:  # before any notebook code: the grader's failure, never the notebook's
        if not _fork_failure(error):
            raise
        emit({"event": "fork_failed", "step": "notebook", "errno": _fork_failure(error)})
        emit({"event": "done"})
        deliver()
        channel.close()
        os._exit(0)
    if child == 0:  # the notebook process: no results descriptor
        try:
            os.close(fd)
            os.close(reader)
            if not own_uid:  # dumpable again, as before: it holds nothing of the grader's
                prctl(PR_SET_DUMPABLE, 1, 0, 0, 0)
            if "--landlock" in argv:  # no bubblewrap: the kernel's own confinement, where it can
                _confine(argv[1])  # still as root: a rule's folder must be opened to be named
            if program:  # no bubblewrap: the grader's network filter, for this process and all
                _load_filter(program)  # it starts
            _forget_ctypes()  # which _confine and _load_filter import
            drop_privileges(uid, prctl, reachable)
            adopt = _orphan_adopter(prctl)
            del prctl  # held only by `adopt` from here on
            if not uid_is_its_own:  # the relay reaps none of the cells' orphans
                adopt()
            _notebook_process(job, writer, flush, adopt, uid_is_its_own)
        finally:
            flush()
            os._exit(0)
    os.close(writer)
    # The sandbox's first process, to which the kernel passes no signal from inside that it has
    # no handler for; Python has one for SIGINT, by which notebook code could still end it.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # A uid of the relay's own, so that no notebook code can stop, kill or look into it.
    drop_privileges(relay_uid, prctl, reachable)
    del prctl
    _relay(job, reader, child, emit, deliver, not uid_is_its_own)
    emit({"event": "done"})
    deliver()
    # Straight out: tearing down an interpreter full of snapshots takes longer than the job.
    channel.close()
    flush()
    os._exit(0)


# -- the relay ---------------------------------------------------------------------------

def _relay(job: Job, reader: int, child: int, emit: Callable[[Event], None],
           deliver: Callable[[], None], uid_shared: bool = False) -> None:
    """Pass on what the notebook's processes report, checked against the job: what `emit`
    gathers from one read is delivered together. After a read, the relay waits RELAY_PAUSE
    (or until the notebook process ends) so that the next read finds several records: each
    wake-up costs the relay and the grader more CPU than a record does. `uid_shared`: the
    notebook's uid is shared with processes other than the sandbox's (the grader's own, run by
    an ordinary user without bubblewrap), so that the notebook process may report, once, that
    it could not start a process for the tests (_short_of_processes)."""
    labels = [f"setup cell {i + 1}" for i in range(len(job.get("prelude", [])))]
    labels += [cell["label"] for cell in job.get("cells", [])]
    budgets = {case["id"]: float(case.get("timeout", 5.0)) for case in job.get("cases", [])}
    outcomes: dict[str, dict] = {}
    ended: dict[str, dict] = {}
    passed_on: set[str] = set()
    forged: set[str] = set()
    cells_seen: set[int] = set()
    flags: list[str] = []
    began = False  # whether the notebook process has started the hidden tests
    short = False  # whether it said that it could not start a process for the tests

    def flag(text: str) -> None:
        if len(flags) < FLAG_CAP and text not in flags:
            flags.append(text)
            emit({"event": "flag", "text": text[:300]})

    def settle(ident: str) -> None:
        if ident in passed_on or ident in forged:
            return
        if ident in outcomes:
            passed_on.add(ident)
            emit({"event": "case", "id": ident, "outcome": outcomes[ident]})
        elif ident in ended:
            passed_on.add(ident)
            emit({"event": "case", "id": ident, "outcome": _ending(ended[ident], budgets[ident])})

    def forge(ident: str, why: str) -> None:
        flag(f"{why} for hidden test {ident}")
        if ident not in forged:
            forged.add(ident)
            emit({"event": "case", "id": ident,
                  "outcome": {"tampered": f"{why}; this test's result cannot be trusted"}})

    def handle(record: object) -> None:
        nonlocal began, short
        if not isinstance(record, dict):
            flag("an unreadable record reached the grader's channel")
            return
        if record == {"tests": "begin"} or set(record) == {"tests", "process"} \
                and record["tests"] == "begin" and type(record["process"]) is int:
            if began:  # one of the two came from notebook code: no outcome can be trusted
                for ident in budgets:
                    forge(ident, "the hidden tests were started twice")
            elif "process" in record:
                watch_tests(record["process"])
            began = True
        elif "cell" in record and len(record) == 2 and "error" in record:
            index = record["cell"]
            if type(index) is int and 0 <= index < len(labels) and index not in cells_seen \
                    and not began:
                cells_seen.add(index)
                emit({"event": "cell", "label": labels[index], "error": record["error"]})
            else:
                flag("a forged cell record reached the grader's channel")
        elif "case" in record and set(record) == {"case", "outcome"}:
            ident = record["case"]
            if type(ident) is not str or ident not in budgets:
                flag("an outcome for a hidden test that does not exist reached the grader")
            elif not began:
                forge(ident, "an outcome arrived before the hidden tests began")
            elif ident in outcomes or ident in ended:
                forge(ident, "a second outcome arrived")
            else:
                outcomes[ident] = record["outcome"]
                settle(ident)
        elif "ended" in record and set(record) == {"ended", "status", "cpu"}:
            ident = record["ended"]
            if type(ident) is not str or ident not in budgets:
                flag("a report for a hidden test that does not exist reached the grader")
            elif not began:
                forge(ident, "a report of the test's end arrived before the hidden tests began")
            elif ident in ended:
                forge(ident, "a second report of the test's end arrived")
            elif ident in outcomes:  # a test's process carries on after sending its outcome
                forge(ident, "the test's process ended after its outcome was sent")
            else:
                ended[ident] = record
                settle(ident)
        elif set(record) == {"flag"} and isinstance(record["flag"], str):
            flag(record["flag"])
        elif record == {"stopped": "cpu"}:
            emit({"event": "stopped", "why": "cpu"})
        elif set(record) == {"fork_failed"} and record["fork_failed"] in FORK_ERRORS.values():
            if uid_shared and not short:  # perhaps notebook code's: it gains one grading alone
                short = True
                emit({"event": "fork_failed", "step": "tests", "errno": record["fork_failed"]})
            else:
                flag("a forged report that the grader could not start a process reached its "
                     "channel")
        elif record == {"forged": "progress"}:  # out of order: notebook code wrote it
            for ident in budgets:
                forge(ident, "notebook code wrote to the hidden tests' progress channel")
        else:
            flag("an unexpected record reached the grader's channel")

    tests_handle: list[int] = []  # a pidfd of the process running the tests, when not `child`

    def watch_tests(pid: int) -> None:
        try:
            tests_handle.append(os.pidfd_open(pid))
        except (AttributeError, OSError, ValueError, OverflowError):
            pass  # no pidfd: the grader's own backstop ends a wait for the stopped process

    buffer = b""
    cut = False  # the buffer held a record too long to keep: its rest is dropped unread
    received = 0
    exited_at = None
    try:
        ended_handle: int | None = os.pidfd_open(child)  # readable once the child has ended
    except (AttributeError, OSError):
        ended_handle = None  # no pidfd (Linux before 5.3): no pause
    while True:
        # The relay is the sandbox's first process (bwrap --as-pid-1): what notebook code leaves
        # running when its parent ends comes to it, and is reaped here once it ends.
        while True:
            try:
                pid = os.waitpid(-1, os.WNOHANG)[0]
            except ChildProcessError:
                pid = child  # no child left at all
            if pid == 0:
                break
            if pid == child:
                exited_at = exited_at or time.monotonic()
                break
        if exited_at is None and tests_handle and select.select(tests_handle, [], [], 0)[0]:
            exited_at = time.monotonic()  # the tests' process ended (the notebook's is stopped)
        if exited_at is not None and time.monotonic() - exited_at > 0.5:
            break  # a process the notebook started still holds the pipe open
        ready, _, _ = select.select([reader], [], [], 0.1)
        if not ready:
            continue
        data = os.read(reader, 65536)
        if not data:
            break
        received += len(data)
        if received > 64 * RECORD_CAP:
            flag("the notebook's processes sent more than the grader reads")
            break
        buffer += data
        if b"\n" not in data:
            lines = []
        else:  # split once: one line at a time would copy the rest of the buffer each time
            *lines, buffer = buffer.split(b"\n")
            if cut:
                del lines[0]
                cut = False
        for line in lines:
            if not line:  # every record is sent after a line end of its own
                continue
            if len(line) > RECORD_CAP:
                flag("an overlong record reached the grader's channel")
                continue
            if line[:1] != b"{":  # every record is a JSON object: no need to parse the rest
                flag("an unreadable record reached the grader's channel")
                continue
            try:
                handle(wire.loads(line))
            except (ValueError, RecursionError):
                flag("an unreadable record reached the grader's channel")
            except Exception:  # whatever a record holds, the relay goes on
                flag("a record the grader could not use reached its channel")
        if len(buffer) > RECORD_CAP:
            buffer, cut = b"", True
            flag("an overlong record reached the grader's channel")
        deliver()
        if ended_handle is not None and len(data) < 65536:  # a full read: more is waiting
            select.select([ended_handle], [], [], RELAY_PAUSE)
    os.close(reader)  # what is still gathered, main delivers with the end
    for pidfd in [*tests_handle, *([ended_handle] if ended_handle is not None else [])]:
        os.close(pidfd)


def _ending(status: dict, budget: float) -> dict:
    """The outcome of a case whose process ended without a trustworthy answer."""
    code = status.get("status")
    cpu = status.get("cpu")
    if code in ("timeout", -signal.SIGXCPU) or code == -signal.SIGKILL \
            and isinstance(cpu, (int, float)) and cpu >= budget * 0.9:
        return {"timeout": budget}
    if isinstance(code, int) and code < 0:
        return {"died": f"the test's process was stopped before it answered (signal {-code})"}
    return {"died": f"the test's process ended before it answered (exit status {code})"}


# -- the notebook process ----------------------------------------------------------------

def _flusher():
    """A function that flushes this process's standard output and error as they are now, by
    their classes' own methods (notebook code may replace sys.stdout, or a stream's flush)."""
    streams = tuple((type(stream).flush, stream) for stream in (sys.stdout, sys.stderr)
                    if stream is not None)

    def flush(_streams=streams) -> None:
        for method, stream in _streams:
            try:
                method(stream)
            except BaseException:  # noqa: S110 (a closed stream has nothing left to keep)
                pass

    return flush


def _notebook_process(job: Job, writer: int, flush, adopt: Callable[[], None],
                      uid_is_its_own: bool) -> None:
    """Run the notebook's cells, then its hidden tests in case servers forked from here.
    `adopt` makes a process adopt orphans (_orphan_adopter). When every other process of its
    uid is the notebook's (`uid_is_its_own`: there the process limit counts exited orphans
    until someone reaps them), this process adopts only once the cells have run; the relay
    reaps the cells' orphans meanwhile, and what is still running of them, found by the uid,
    is ended before the tests. Otherwise it adopted from the start."""
    # Taken before any notebook code, as default arguments that the guard's audit hook keeps
    # notebook code from replacing: everything after uses only these references.
    fork, wait4, kill, exit_now = os.fork, os.wait4, os.kill, os._exit

    def send(record: Record, _write=os.write, _dumps=wire.dumps, _fd=writer,
             _errors=(OSError, ValueError, TypeError), _len=len, _cap=RECORD_CAP) -> bool:
        """Write `record` to the relay; False, with nothing written, for one longer than
        the relay reads."""
        # Each record starts on a line of its own: a partial line that notebook code left on
        # the channel ends here, as one unreadable line, instead of swallowing this record.
        data = ("\n" + _dumps(record) + "\n").encode()
        if _len(data) > _cap + 2:
            return False
        try:
            while data:
                data = data[_write(_fd, data):]
        except _errors:
            pass
        return True

    def report(text: str, _send=send) -> None:
        _send({"flag": f"notebook code tried to {text}"})

    seconds = float(job.get("cell_timeout", 10.0))
    allowed = int(job.get("processes", 64))
    prelude = job.get("prelude", [])
    # The hidden cases, fixed before any notebook code runs, as text and numbers that no code
    # can change in place: the job's own dicts are reachable from a cell (through the
    # collector), and a case server reads each case only when it runs it.
    cases = tuple(wire.dumps(case) for case in job.get("cases", []))
    timeouts = tuple(float(case.get("timeout", 5.0)) for case in job.get("cases", []))
    idents = tuple(str(case["id"]) for case in job.get("cases", []))
    job["cases"] = []
    # The trusted setup cells run first, then the guard's snapshot is taken, before any
    # notebook code exists. The notebook's CPU budget starts after them.
    namespace: dict = {"__name__": "__main__", "__builtins__": builtins}
    for index, source in enumerate(prelude):
        error = run_cell(namespace, source, f"setup cell {index + 1}", seconds)
        if error:
            send({"cell": index, "error": error})
    shielded = (guard.shield_signal_handlers(), guard.shield_builtin_modules())
    if any("traceback" in cell["source"] or "logging" in cell["source"]
           for cell in job.get("cells", [])):
        guard.frameless_tracebacks()  # imported only for the notebooks that print errors
    saved = guard.snapshot(namespace)
    flush()
    budget = float(job.get("cpu_budget", math.inf)) + _cpu_seconds()
    restore = guard.restore
    restore_code, restore_defaults = restore.__code__, restore.__defaults__
    # The course's folder exists here only without bubblewrap; this interpreter's own folders
    # (a virtual environment inside the course's) stay open to it.
    # Nothing in the course's folders or in the sandbox's own code (the folder that holds this
    # package, which later notebooks load too) can be written, but in the scratch folder.
    real = os.path.realpath
    scratch = (os.getcwd(), *([os.environ["TMPDIR"]] if os.environ.get("TMPDIR") else []))
    guard.install(saved, report, also=(send, report, flush),
                  hidden=(*shielded, adopt),
                  private=tuple(real(path) for path in job.get("private", [])),
                  allowed=tuple(real(path) for path in [
                      *job.get("allowed", []), sys.prefix, sys.base_prefix, sys.exec_prefix,
                      *scratch]),
                  readonly=(real(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),),
                  writable=tuple(real(path) for path in scratch))
    for index, cell in enumerate(job.get("cells", [])):
        error = run_cell(namespace, cell["source"], cell["label"], seconds)
        if error:
            send({"cell": len(prelude) + index, "error": error})
    _settle_after_cells()
    if restore.__code__ is not restore_code or restore.__defaults__ is not restore_defaults:
        send({"flag": "notebook code replaced the grader's guard"})
        return
    for what in restore(saved):
        send({"flag": f"notebook code rebound {what} (put back for the tests)"})
    if uid_is_its_own:
        adopt()
        _end_processes_of_uid()
    _end_descendants()
    checked = guard.narrow(saved, __package__ or "sandbox", skip=(__name__, guard.__name__))
    try:
        stopped = _leave_threads_behind(fork, kill, exit_now, adopt)
    except OSError as error:
        if not _short_of_processes(error, uid_is_its_own, allowed, None):
            raise
        send({"fork_failed": _fork_failure(error)})
        return
    if stopped is not None:  # this is a fresh process: what the cells' process used counts
        budget -= stopped[1]
    # The relay takes no outcome before this, and only one of these; from a child that left the
    # cells' threads behind, it names that child, whose end the relay waits for as it would for
    # the notebook's process (which stays stopped).
    begin: TestsRecord = {"tests": "begin"}
    if stopped is not None:
        begin["process"] = os.getpid()
    send(begin)
    index = 0
    while index < len(cases):
        progress, progress_out = os.pipe()
        flush()
        left = budget - _cpu_seconds()  # this process's cells and every case server so far
        _freeze()
        try:
            pid = fork()
        except OSError as error:
            os.close(progress)
            os.close(progress_out)
            if not _short_of_processes(error, uid_is_its_own, allowed,
                                       stopped[0] if stopped is not None else None):
                raise
            send({"fork_failed": _fork_failure(error)})
            break
        if pid == 0:
            os.close(progress)
            _case_server(namespace, (cases, timeouts, idents), index, left, send, progress_out,
                         checked, restore, exit_now, flush)
        os.close(progress_out)
        index = _watch_server(pid, progress, (timeouts, idents), index, send, wait4, kill)
        _end_descendants()  # what the server's processes left (adopted orphans)
    if stopped is not None:  # the relay ends once the process it started has ended
        kill(stopped[0], signal.SIGKILL)


def _fork_failure(error: OSError) -> str:
    """"EAGAIN" or "ENOMEM" for a fork that failed for want of processes or memory, else ""."""
    return FORK_ERRORS.get(error.errno or 0, "")


def _short_of_processes(error: OSError, uid_is_its_own: bool, allowed: int,
                        stopped: int | None) -> bool:
    """Whether a fork of the notebook process that failed with `error` failed for want of
    processes that others took: only where the notebook's uid is not its own (the grader's,
    run by an ordinary user without bubblewrap, which the grader and every sandbox share), and
    while the sandbox holds fewer than its process limit `allowed` (its processes and threads:
    the relay, this process and all under it, and the `stopped` process of the cells' threads).
    Otherwise the notebook used up its processes itself, as it would with a uid of its own."""
    if uid_is_its_own or not _fork_failure(error):
        return False
    held = 1  # the relay
    for pid in [*tree(os.getpid()), *([stopped] if stopped is not None else [])]:
        try:
            held += len(os.listdir(f"/proc/{pid}/task"))
        except OSError:  # ended meanwhile
            continue
    return held < allowed


def _leave_threads_behind(fork, kill, exit_now, adopt) -> tuple[int, float] | None:
    """When the cells left threads running in this process, go on in a child, which has none
    (a fork copies only the thread that forks), and stop this process with its threads for
    good: such a thread could compute for a hidden test while this process waits for the case
    server, outside every count of that test's CPU. Returns, in the child, this process's id
    and the CPU it used (the child's own count starts at 0); None when there were no threads.
    Notebook code that wakes the stopped process ends it (and so its threads, and the
    relay's wait: the tests not yet reported fail)."""
    try:
        if len(os.listdir("/proc/self/task")) <= 1:
            return None
    except OSError:
        return None
    spent, parent = _cpu_seconds(), os.getpid()
    _freeze()
    if fork() != 0:
        kill(parent, signal.SIGSTOP)
        exit_now(0)
    adopt()  # not inherited
    return parent, spent


def _freeze() -> None:
    """Before a fork: leave what exists now out of later collections, so that neither process
    writes to the other's pages just to look at objects that stay (each write copies a page),
    and collect in the child only what it makes. The worker starts with collections off."""
    gc.freeze()
    gc.enable()


def _end_descendants(rounds: int = 50) -> None:
    """End every process under this one, with what they started: the processes the cells left
    (a helper that would compute for the graded functions outside every hidden test's CPU
    count), and those a case server left. Run once the guard has put back what the cells
    rebound (this reads /proc with the standard library). Orphans come to this process
    (_orphan_adopter), so each round reaps what it killed and what was handed to it meanwhile,
    until nothing is left."""
    own = os.getpid()
    for _ in range(rounds):
        below = tree(own)[1:]
        if not below:
            return
        for process in reversed(below):
            try:
                os.kill(process, signal.SIGKILL)
            except OSError:  # ended meanwhile
                pass
        for process in below:
            try:
                os.waitpid(process, 0)  # this process's own children (and orphans it adopted)
            except (OSError, ChildProcessError):  # another's child, reaped by its parent
                pass


def _end_processes_of_uid() -> None:
    """End every other process running as this one's uid, which is the notebook's own: those
    the cells started whose parent ended (the relay, or init, adopted them). A relay of the
    same uid is the first process of the sandbox's process namespace, which the kernel keeps
    from this signal."""
    own, uid = os.getpid(), os.getuid()
    try:
        names = os.listdir("/proc")
    except OSError:
        return
    for name in names:
        if name.isdigit() and int(name) != own:
            try:
                if os.stat(f"/proc/{name}").st_uid == uid:
                    os.kill(int(name), signal.SIGKILL)
            except OSError:  # ended meanwhile
                pass


def _settle_after_cells() -> None:
    """Undo what cells may have left armed: timers, signal handlers, hooks."""
    signal.setitimer(signal.ITIMER_REAL, 0)
    signal.setitimer(signal.ITIMER_PROF, 0)
    signal.setitimer(signal.ITIMER_VIRTUAL, 0)
    for number in range(1, signal.NSIG):
        if number in (signal.SIGKILL, signal.SIGSTOP):
            continue
        try:
            signal.signal(number, signal.SIG_DFL if number != signal.SIGINT
                          else signal.default_int_handler)
        except (OSError, ValueError, RuntimeError):
            pass
    gc.callbacks.clear()
    sys.excepthook, sys.unraisablehook = sys.__excepthook__, sys.__unraisablehook__
    sys.displayhook, sys.breakpointhook = sys.__displayhook__, sys.__breakpointhook__


def _cpu_seconds() -> float:
    used = os.times()
    return used[0] + used[1] + used[2] + used[3]


def _case_server(namespace: dict, fixed: tuple[tuple[str, ...], tuple[float, ...], tuple[str, ...]],
                 start: int, budget: float, send, progress: int, checked, restore, exit_now,
                 flush, _loads=wire.loads) -> None:
    """Run the hidden cases from `start` on, in this process forked from the restored state,
    within `budget` CPU seconds in all; never returns. After each case, what the code under
    test rebound is put back and that case fails. Tells the notebook process (on `progress`)
    which case runs, so that when this process dies, a fresh one continues with the next.
    Each progress line starts on a line of its own, like the relay's records: a partial line
    the code under test wrote to the pipe is then one line the watcher ignores."""
    cases, timeouts, idents = fixed

    def check() -> str | None:
        changed = restore(checked)
        if not changed:
            return None
        what = "the code under test rebound " + ", ".join(changed[:5])
        send({"flag": what})
        return what

    try:
        for index in range(start, len(cases)):
            used = _cpu_seconds()
            if used > budget:
                send({"stopped": "cpu"})
                os.write(progress, b"\nstop\n")
                break
            os.write(progress, f"\n{index} {used:.3f}\n".encode())
            limit = min(timeouts[index], max(budget - used, 0.1))
            # A case that swallows its time-out is ended by the kernel a second later.
            own = resource.getrusage(resource.RUSAGE_SELF)
            soft = math.ceil(own.ru_utime + own.ru_stime + limit) + 1
            hard = resource.getrlimit(resource.RLIMIT_CPU)[1]
            if hard == resource.RLIM_INFINITY or soft < hard:
                resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))
            try:
                case = _loads(cases[index])  # a fresh copy: what this case may change
                case["timeout"] = limit
                outcome = run_case(namespace, case, check)
            except StepTimeout:
                outcome = {"timeout": limit}
            what = check()
            if what:
                outcome = {"tampered": what}
            if not send({"case": idents[index], "outcome": outcome}):  # over 1 MiB, as data
                send({"case": idents[index], "outcome": {"value": {"__toolarge__": True}}})
        else:
            os.write(progress, b"\nend\n")
    except BaseException:  # noqa: S110 (the notebook process reports the case that ended)
        flush()
        exit_now(3)
    flush()
    exit_now(0)


def _watch_server(pid: int, progress: int, fixed: tuple[tuple[float, ...], tuple[str, ...]],
                  start: int, send, wait4, kill) -> int:
    """Wait for a case server; stop it when one case waits past its wall-clock backstop or
    computes past its CPU limit (CPU_GRACE); stop it, and have every case fail, when its
    progress lines come out of order. Returns the index of the next case to run (len(cases)
    when nothing is left).

    The server writes a line to `progress` as each case starts. This process does not wake
    for each line: it sleeps until the server ends or until the next look (at most WATCH_LOOK
    seconds, or the backstop's deadline), and then reads every line written since. A case's
    backstop therefore starts at most WATCH_LOOK late, which only ever gives it longer."""
    timeouts, idents = fixed
    count = len(idents)

    own = os.getpid()

    def counted() -> float | None:
        """The CPU time of the server's process tree and of the orphans it left (adopted by
        this process: _orphan_adopter)."""
        used = tree_cpu(pid)
        return None if used is None else used + adopted_cpu(own, pid)

    def backstop(index: int) -> Backstop:
        seconds = wall_backstop(timeouts[index])
        return Backstop(seconds, counted, queued=lambda: tree_queued(own))  # its orphans too

    state: _WatchState = {"current": start, "backstop": backstop(start), "cpu": 0.0,
                          "base": 0.0, "expected": start, "forged": False,
                          "finished": False, "buffer": b""}

    def over_limit() -> bool:
        """Whether the current case used its CPU limit and CPU_GRACE more (read from /proc,
        so code under test cannot turn this limit off as it can its own timer), with the
        processes it started (a fork computing in its place)."""
        base, used = state["base"], counted()
        return base is not None and used is not None and \
            used - base > timeouts[state["current"]] + CPU_GRACE

    def take(data: bytes) -> None:
        state["buffer"] += data
        current = state["current"]
        learnt = False  # a case started: its base is read once, after every line of `data`
        while b"\n" in state["buffer"]:
            line, state["buffer"] = state["buffer"].split(b"\n", 1)
            words = line.split()
            if words in ([b"end"], [b"stop"]):
                state["finished"] = True
            elif len(words) == 2 and words[0].isdigit():
                if int(words[0]) != state["expected"] or state["expected"] >= count:
                    state["forged"] = True  # the server writes start, start + 1, ... only
                    continue
                state["current"] = state["expected"]
                state["expected"] += 1
                learnt = True
                try:
                    state["cpu"] = float(words[1])
                except ValueError:
                    state["cpu"] = 0.0
        state["buffer"] = state["buffer"][-4096:]
        if learnt:  # only the latest case's base counts: one look at /proc for all of `data`
            state["base"] = counted()
        if state["current"] != current:  # one look at the server's CPU, for the latest case
            state["backstop"] = backstop(state["current"])

    def catch_up(reads: int = 64) -> None:
        """Read what the server wrote (a bounded amount; it never blocks)."""
        try:
            for _ in range(reads):
                data = os.read(progress, 65536)
                if not data:
                    break
                take(data)
        except OSError:  # BlockingIOError: nothing more for now
            pass

    try:
        handle = os.pidfd_open(pid)
    except (AttributeError, OSError):
        handle = None
    os.set_blocking(progress, False)
    while True:
        done, status, usage = wait4(pid, os.WNOHANG)
        if done == pid:
            break
        catch_up()
        if state["forged"]:
            kill(pid, signal.SIGKILL)
            wait4(pid, 0)
            break
        if state["backstop"].passed() or over_limit():
            for process in reversed(tree(own)[1:]):  # with what it started, which would go on
                try:
                    kill(process, signal.SIGKILL)
                except OSError:  # ended meanwhile
                    pass
            _, status, usage = wait4(pid, 0)
            status = None
            break
        left = state["backstop"].left()
        if handle is not None:  # readable once the server has ended
            select.select([handle], [], [], min(max(left, 0.01), WATCH_LOOK))
        else:  # no pidfd (Linux before 5.3): the progress pipe's end says so instead
            ready, _, _ = select.select([progress], [], [], min(max(left, 0.01), 0.05))
            if ready:
                data = os.read(progress, 4096)
                take(data)
                if not data:
                    time.sleep(0.005)
    catch_up(16)  # what the server wrote just before it ended (a bounded amount)
    current, finished, cpu_at_start = state["current"], state["finished"], state["cpu"]
    os.close(progress)
    if handle is not None:
        os.close(handle)
    if state["forged"]:
        send({"forged": "progress"})  # the relay fails every case of the notebook
        return count
    if finished or current >= count:
        return count
    cpu = usage.ru_utime + usage.ru_stime - cpu_at_start
    code = "timeout" if status is None else os.waitstatus_to_exitcode(status)
    send({"ended": idents[current], "status": code, "cpu": round(max(cpu, 0.0), 3)})
    return current + 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
