"""Run one grading job in a sandbox process and collect what it reports.

The job (plain JSON, typed in `sandbox/protocol.py`) goes to a fresh worker process on stdin;
the worker's JSON-line events come back on a pipe of their own, and its stdout and stderr are
captured with a size cap. Nothing else crosses: the parent never imports or calls anything
the student's code defined. How the process is isolated is `isolation.py`; its control
groups, `cgroups.py`; the registry of running workers, `processes.py`.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import secrets
import selectors
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, cast

from . import holdings, processes
from .cgroups import Cgroup
from .isolation import DATA, INTERPRETER_MB, Isolation, compiled_package, environment, seccomp_pipe
from .sandbox import protocol
from .sandbox.backstop import Backstop, tree, tree_queued

# Each sandbox runs as a uid of its own from this range (no account needs to exist for it), so
# a per-user limit such as RLIMIT_NPROC that one submission exhausts never touches another. Its
# relay runs as that uid plus 1,000,000 (sandbox/worker.py), outside this range.
SANDBOX_UIDS = range(200_000, 1_200_000)
OUTPUT_CAP = 64 * 1024  # bytes of student stdout and of stderr kept per notebook
RESULTS_CAP = 16 * 1024 * 1024  # bytes of events read from the worker
EVENT_CAP = 1024 * 1024  # one event line longer than this is ignored
# JSON values (containers, items and keys) read from one run's events, counted before parsing
# as a line's brackets, commas and colons (an upper bound). Each costs the grader up to about
# 70 bytes however short its text (16 MiB of "[[[[]]]]" returned by a graded function became
# 8 million lists, 800 MiB and 14 s of the grader's CPU), so this keeps one notebook's results
# to about 70 MiB; an honest notebook sends at most about 50,000.
VALUES_CAP = 1_000_000
START_GRACE = 1.0  # seconds for starting the sandbox, not counted against the notebook
FORK_ERRORS = {errno.EAGAIN: "EAGAIN", errno.ENOMEM: "ENOMEM"}  # no process could be started


@dataclass(frozen=True)
class Limits:
    time: float = 60.0  # CPU seconds for the whole notebook (see `backstop` for wall-clock)
    memory_mb: int = 1024
    cell_time: float = 10.0  # CPU seconds for one notebook cell
    processes: int = 64  # processes (and threads) of one sandbox at once
    cpus: float = 1.0  # share of the machine's cores one sandbox may use at most
    # Sandboxes the grader runs at once (--jobs): where their processes share one uid (the
    # fallback run by an ordinary user), the process limit is theirs together
    # (isolation.shared_process_limit). It changes no verdict, so no fingerprint (repr).
    sandboxes: int = field(default=1, repr=False)

    @property
    def backstop(self) -> float:
        """Wall-clock seconds after which a notebook that no longer computes is stopped: only
        code that waits gets there. A sandbox that still uses CPU gets more time, up to
        backstop.CEILING times this (sandbox/backstop.py), so a saturated machine slows
        grading down without changing a verdict."""
        return self.time * 2 + 20


@dataclass
class RunResult:
    events: list[dict] = field(default_factory=list)
    stdout: str = ""
    stderr: str = ""
    stdout_bytes: int = 0  # how much the notebook printed in total
    stderr_bytes: int = 0
    timed_out: bool = False
    returncode: int | None = None
    elapsed: float = 0.0
    dropped_events: int = 0  # lines that were too long, not JSON, or past the caps
    cut: bool = False  # more results than RESULTS_CAP or VALUES_CAP: the rest was not read
    # "EAGAIN" or "ENOMEM" when the grader could not start one of its processes for the notebook
    # (the worker, or the relay's or notebook process's fork: sandbox/worker.py), else ""
    fork_failed: str = ""
    # Where every sandbox's processes count against the grader's uid: another sandbox held
    # (nearly) all of this one's share of them while it ran (processes.watch)
    crowded: bool = False
    # Others held most of that share while it held little itself: a report of its own code that
    # a thread or process could not start may then be true (grading._crowded_out)
    pressed: bool = False
    # Without bubblewrap: why it was stopped for holding more in its folders than bubblewrap
    # gives a notebook (one of holdings' sentences), else ""
    held_too_much: str = ""

    @property
    def finished(self) -> bool:
        return any(event.get("event") == "done" for event in self.events)


_uids_in_use: set[int] = set()
_uids_lock = threading.Lock()
# As root, a file per uid in use, so that graders running at once on one machine draw
# different ones too (a file left by a grader that was killed only retires its uid).
UID_CLAIMS = Path(tempfile.gettempdir()) / "autograder-uids"


def sandbox_uid() -> int:
    """A fresh uid for one sandbox run, that no running sandbox of this grader has, nor, as
    root, of another grader on this machine (give it back with `release_uid`): without
    bubblewrap, the notebook's process ends every other process of its uid before the tests."""
    with _uids_lock:
        while True:
            uid = SANDBOX_UIDS.start + secrets.randbelow(len(SANDBOX_UIDS))
            if uid not in _uids_in_use and _claim(uid):
                _uids_in_use.add(uid)
                return uid


def _claim(uid: int) -> bool:
    if os.geteuid() != 0:  # the notebook runs as this uid: nothing to share
        return True
    try:
        UID_CLAIMS.mkdir(mode=0o700, exist_ok=True)
        os.close(os.open(UID_CLAIMS / str(uid), os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
    except FileExistsError:
        return False
    except OSError:  # no place to claim it: this grader's own set still holds
        return True
    return True


def release_uid(uid: int) -> None:
    with _uids_lock:
        _uids_in_use.discard(uid)
    if os.geteuid() == 0:
        try:
            os.unlink(UID_CLAIMS / str(uid))
        except OSError:
            pass


def _scratch_folder(assignment: str, uid: int) -> tuple[tempfile.TemporaryDirectory, Path]:
    """A private working folder for an unisolated (not bubblewrapped) worker, with a `data`
    link beside it so notebooks find the course data the way they do in the sandbox, and a
    `tmp` folder for its TMPDIR. The worker confines itself to this folder (sandbox/landlock.py:
    its cwd, ROOT/scratch/ASSIGNMENT, says where ROOT is)."""
    holder = tempfile.TemporaryDirectory(prefix="autograder-")
    root = Path(holder.name)
    workdir = root / "scratch" / (assignment or "work")
    workdir.mkdir(parents=True)
    (root / "tmp").mkdir()
    if (DATA / "README.md").is_file():
        (root / "data").symlink_to(DATA)
    if os.geteuid() == 0:
        for folder in (root, root / "scratch", workdir, root / "tmp"):
            os.chown(folder, uid, uid)
    return holder, workdir


# All of the grader's environment that bubblewrap (and the shell that puts it in its control
# group) are given.
BWRAP_ENVIRONMENT = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8"}
SHARED_MEMORY = "/dev/shm"


def remove_shared_memory_of(uid: int) -> None:
    """Remove what `uid`, a finished notebook's own, left in /dev/shm. Without bubblewrap it is
    the one folder of the machine a notebook may write besides its scratch folder (Landlock lets
    it, for multiprocessing's locks and queues), and its files are memory, charged to the
    sandbox's control group, that outlives the sandbox: left there, they would hold memory of the
    machine, and of the next notebook given that group, which would then run out of it. As root
    only: otherwise every notebook runs as the grader's own uid, and what is whose cannot be told.
    """
    if os.geteuid() != 0 or uid < SANDBOX_UIDS.start:
        return
    try:
        entries = list(os.scandir(SHARED_MEMORY))
    except OSError:
        return
    for entry in entries:
        try:
            if entry.stat(follow_symlinks=False).st_uid != uid:
                continue
            if entry.is_dir(follow_symlinks=False):
                holdings.remove(entry.path)
            else:
                os.unlink(entry.path)
        except OSError:  # gone meanwhile
            continue


class _Sink:
    """Keeps the first `cap` bytes of a stream and counts the rest."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.kept = bytearray()
        self.total = 0
        self.flooded = False  # past the cap, and its pipe made larger

    def add(self, data: bytes) -> None:
        self.total += len(data)
        room = self.cap - len(self.kept)
        if room > 0:
            self.kept += data[:room]

    def drain(self, fd: int) -> bool:
        """Take what the pipe `fd` holds; True at its end. Past the cap the bytes are only
        counted: the kernel moves them to /dev/null (splice) without copying them into this
        process, so a notebook that prints without end (gigabytes a second) costs the grader
        about two thirds of the CPU time the notebook is allowed, where copying cost twice."""
        if len(self.kept) >= self.cap and _DEVNULL is not None:
            if not self.flooded:  # a pipe of 1 MiB: a sixteenth of the wake-ups of 64 KiB
                self.flooded = True
                try:
                    fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, 2**20)
                except (OSError, AttributeError):
                    pass  # over the user's share of pipe memory: the pipe keeps its size
            try:
                moved = os.splice(fd, _DEVNULL, 2**20, flags=os.SPLICE_F_NONBLOCK)
            except BlockingIOError:
                raise
            except OSError:  # a kernel that cannot splice into /dev/null: read it instead
                pass
            else:
                self.total += moved
                return not moved
        data = os.read(fd, 65536)
        self.add(data)
        return not data


def _open_devnull() -> int | None:
    if not hasattr(os, "splice"):  # Linux only
        return None
    try:
        return os.open(os.devnull, os.O_WRONLY | os.O_CLOEXEC)
    except OSError:
        return None


_DEVNULL = _open_devnull()


class Started:
    """A worker process started for one notebook, waiting for its job on stdin: bubblewrap
    has built its sandbox and Python has imported the sandbox package. `start` makes one and
    `run` gives it its job; one started ahead of time (while the grader is still reading
    notebooks and expected values, with a core to spare) is used only for a job of the very
    limits, isolation and assignment it was started with, and `discard` ends it otherwise."""

    def __init__(self, process: subprocess.Popen, results: int, group: Cgroup,
                 key: tuple[int, int, float], holder: tempfile.TemporaryDirectory | None,
                 fits: tuple, uid: int, shared_limit: int | None = None) -> None:
        self.process, self.results, self.group, self.key = process, results, group, key
        self.holder, self.fits, self.uid = holder, fits, uid
        # its RLIMIT_NPROC where that counts the grader's own uid's tasks (processes.watch)
        self.shared_limit = shared_limit
        self._taken = threading.Lock()

    def take(self) -> bool:
        """True once: for the one caller that then owns the process (runs it or discards it)."""
        return self._taken.acquire(blocking=False)

    def discard(self) -> None:
        """End the process unused (nothing when it was taken already)."""
        if self.take():
            os.close(self.results)
            self.close()

    def close(self) -> None:
        """End what is left of the process and give back its control group and folder."""
        process = self.process
        processes.kill_group(process)
        process.wait()
        self.group.give_back(self.key)
        with processes.live_lock:
            processes.live.discard(process)
        if processes.reaping:
            processes.reap_orphans()
        if self.holder:  # without bubblewrap; bubblewrap's /dev/shm ends with its sandbox
            remove_shared_memory_of(self.uid)
        for stream in (process.stdin, process.stdout, process.stderr):
            try:
                if stream is not None:
                    stream.close()
            except OSError:
                pass
        if self.holder:
            holdings.remove(self.holder.name)
            self.holder.cleanup()
        release_uid(self.uid)


def _fits(limits: Limits, isolation: Isolation, assignment: str) -> tuple:
    return (limits, isolation.kind, assignment)


def start(limits: Limits, isolation: Isolation, assignment: str = "") -> Started | None:
    """Start a worker for one notebook of `assignment`; None once grading is stopping."""
    if processes.stopping.is_set():
        return None
    holder = None
    scratch = None
    uid = sandbox_uid()
    if not isolation.isolated:
        holder, scratch = _scratch_folder(assignment, uid)
    read_end, write_end = os.pipe()
    filter_fd = seccomp_pipe(isolation.isolated)
    passed = (write_end,) if filter_fd is None else (write_end, filter_fd)
    folder = str(compiled_package().parent)
    key = ((limits.memory_mb + INTERPRETER_MB) * 2**20, limits.processes, limits.cpus)
    group = Cgroup.take(*key)
    nproc = isolation.process_limit(limits)
    command = group.wrap(isolation.command(folder, limits, write_end, assignment, uid, filter_fd,
                                           nproc))
    process = None
    try:
        with processes.live_lock:
            if not processes.stopping.is_set():
                process = subprocess.Popen(
                    command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE, pass_fds=passed, start_new_session=True,
                    close_fds=True, cwd=scratch,
                    # bubblewrap clears the worker's environment, but keeps its own: run
                    # unprivileged it stays in the sandbox as its first process, whose
                    # /proc/1/environ notebook code can read, so it gets none of the grader's.
                    env=dict(BWRAP_ENVIRONMENT) if isolation.isolated else environment(
                        str(scratch), str(Path(str(scratch)).parent.parent / "tmp")))
                processes.live.add(process)
    finally:
        os.close(write_end)
        if filter_fd is not None:
            os.close(filter_fd)
        if process is None:  # stopping, or the process could not be started (OSError)
            os.close(read_end)
            group.remove()
            if holder:
                holder.cleanup()
            release_uid(uid)
    if process is None:
        return None
    return Started(process, read_end, group, key, holder, _fits(limits, isolation, assignment),
                   uid, nproc if nproc >= 0 and isolation.shares_processes else None)


def run(job: protocol.Job, limits: Limits, isolation: Isolation,
        assignment: str = "", ahead: Started | None = None) -> RunResult:
    """Run one job in a fresh worker process; never raises for anything the job's code does.
    `ahead`, a worker started earlier for this notebook, is used when it fits the job and is
    still waiting for it; otherwise it is ended and a fresh one started."""
    result = RunResult()
    started = None
    if ahead is not None:
        if ahead.fits == _fits(limits, isolation, assignment) \
                and ahead.process.poll() is None and ahead.take():
            started = ahead
        else:
            ahead.discard()
    if started is None:
        try:
            started = start(limits, isolation, assignment)
        except OSError as error:
            if error.errno not in FORK_ERRORS:
                raise
            result.fork_failed = FORK_ERRORS[error.errno]
            return result
        if started is None or not started.take():
            return result
    process, read_end = started.process, started.results
    begun = time.monotonic()
    stdout, stderr, events = _Sink(OUTPUT_CAP), _Sink(OUTPUT_CAP), _Sink(RESULTS_CAP)
    # All three streams were opened as pipes (subprocess.PIPE above), so none is None.
    pipes = cast("tuple[IO[bytes], IO[bytes], IO[bytes]]",
                 (process.stdin, process.stdout, process.stderr))
    pid = process.pid
    if started.shared_limit is not None:
        processes.watch(pid, started.shared_limit, limits.processes)
    # Without bubblewrap its folders are the machine's: watched (as root, its uid's /dev/shm too)
    held = None if started.holder is None else holdings.Watch(
        os.path.realpath(started.holder.name), started.uid if os.geteuid() == 0 else None,
        processes=lambda: tree(pid))
    try:
        stopped = _pump(process, json.dumps(job).encode(), read_end,
                        {pipes[1].fileno(): stdout, pipes[2].fileno(): stderr, read_end: events},
                        Backstop(limits.backstop + START_GRACE, lambda: processes.tree_cpu(pid),
                                 fresh=True, queued=lambda: tree_queued(pid)), held)
        result.held_too_much = held.over if held is not None else ""
        result.timed_out = stopped and not result.held_too_much
    finally:
        share = processes.unwatch(pid)
        result.crowded, result.pressed = share.crowded, share.pressed
        started.close()
    result.elapsed = time.monotonic() - begun
    result.returncode = process.returncode
    result.stdout = stdout.kept.decode("utf-8", "replace")
    result.stderr = stderr.kept.decode("utf-8", "replace")
    result.stdout_bytes, result.stderr_bytes = stdout.total, stderr.total
    result.events, result.dropped_events, result.cut = _parse_events(events)
    result.fork_failed = next((event["errno"] for event in result.events
                               if event.get("event") == "fork_failed"
                               and event.get("errno") in FORK_ERRORS.values()), "")
    return result


def _pump(process: subprocess.Popen, payload: bytes, results_fd: int,
          sinks: dict[int, _Sink], backstop: Backstop, held: holdings.Watch | None = None) -> bool:
    """Feed the job and drain all output until the worker ends; True when it is to be stopped
    early: it waited past its wall-clock backstop, or `held` found it holding too much."""
    selector = selectors.DefaultSelector()
    for fd in sinks:
        os.set_blocking(fd, False)
        selector.register(fd, selectors.EVENT_READ)
    pipe = cast(IO[bytes], process.stdin)  # the caller opened it with stdin=subprocess.PIPE
    stdin = pipe.fileno()
    os.set_blocking(stdin, False)
    selector.register(stdin, selectors.EVENT_WRITE)
    sent = 0
    exited_at = None
    try:
        while selector.get_map():
            if backstop.passed() or held is not None and held.look():
                return True
            now = time.monotonic()
            if exited_at is None and process.poll() is not None:
                exited_at = now
            if exited_at is not None and now - exited_at > 0.5:
                break  # something outside the worker still holds a pipe open
            wake = min(backstop.deadline, held.due) if held is not None else backstop.deadline
            for key, _ in selector.select(min(max(wake - now, 0.01), 0.25)):
                fd = key.fd
                try:
                    if fd == stdin:
                        sent += os.write(fd, payload[sent:sent + 65536])
                        done = sent >= len(payload)
                    else:
                        done = sinks[fd].drain(fd)
                except BlockingIOError:
                    continue
                except OSError:
                    done = True
                if done:
                    selector.unregister(fd)
                    if fd == stdin:
                        pipe.close()
                    elif fd == results_fd:
                        os.close(fd)
    finally:
        for key in list(selector.get_map().values()):
            if key.fd == results_fd:
                os.close(results_fd)
        selector.close()
    remaining = backstop.left()
    try:
        process.wait(timeout=max(0.0, min(remaining, 2.0)))
    except subprocess.TimeoutExpired:
        return remaining <= 2.0
    return False


def _parse_events(sink: _Sink) -> tuple[list[dict], int, bool]:
    """Untrusted JSON lines to event dicts, and how many were dropped: anything malformed is
    counted, never raised. True when the lines went past RESULTS_CAP or VALUES_CAP, whose
    rest is dropped unread."""
    events, dropped = [], 0
    lines = sink.kept.split(b"\n")
    cut = sink.total > len(sink.kept)
    if cut:
        lines.pop()  # the cut-off line
        dropped += 1
    values = 0
    for index, line in enumerate(lines):
        if not line.strip():
            continue
        if len(line) > EVENT_CAP:
            dropped += 1
            continue
        values += 1 + sum(map(line.count, (b"[", b"{", b",", b":")))
        if values > VALUES_CAP:
            dropped += sum(1 for rest in lines[index:] if rest.strip())
            cut = True
            break
        try:
            event = json.loads(line)
        except (ValueError, RecursionError):
            dropped += 1
            continue
        if isinstance(event, dict):
            events.append(event)
        else:
            dropped += 1
    return events, dropped, cut
