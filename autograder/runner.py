"""Run one grading job in a sandbox process and collect what it reports.

The job (plain JSON, see `sandbox/worker.py`) goes to a fresh worker process on stdin; the
worker's JSON-line events come back on a pipe of their own, and its stdout and stderr are
captured with a size cap. Nothing else crosses: the parent never imports or calls anything
the student's code defined.

With bubblewrap (`bwrap`, Debian package `bubblewrap`) the worker sees a read-only system
(Python, the `autograder/sandbox` folder at /grader/sandbox, the course `data/` at
/course/data), a size-limited scratch folder as its working directory, no network, and its own
process namespace, which dies with it. Without bubblewrap the same worker runs as a plain
process with the same resource limits, and isolation is reduced (see `Sandbox.isolated`).
In both cases the worker itself drops to an unprivileged uid of its own (see SANDBOX_UIDS)
before any notebook code runs.
"""

from __future__ import annotations

import atexit
import ctypes
import functools
import json
import logging
import os
import platform
import secrets
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, cast

from . import escape, seccomp
from .sandbox import protocol

SANDBOX_PACKAGE = Path(__file__).resolve().parent / "sandbox"
DATA = Path(__file__).resolve().parent.parent / "data"
UNPRIVILEGED = 65534
# Each sandbox runs as a uid of its own from this range (no account needs to exist for it), so
# a per-user limit such as RLIMIT_NPROC that one submission exhausts never touches another.
SANDBOX_UIDS = range(200_000, 1_200_000)
VENV = "/opt/venv"  # where the grader's venv appears inside the sandbox

OUTPUT_CAP = 64 * 1024  # bytes of student stdout and of stderr kept per notebook
RESULTS_CAP = 16 * 1024 * 1024  # bytes of events read from the worker
EVENT_CAP = 1024 * 1024  # one event line longer than this is ignored
SCRATCH_BYTES = 64 * 1024 * 1024
TMP_BYTES = 16 * 1024 * 1024
INTERPRETER_MB = 128  # address space Python itself needs on top of the memory limit
START_GRACE = 1.0  # seconds for starting the sandbox, not counted against the notebook

# With -c, sys.path[0] is the working directory (the scratch folder): replace it with the
# folder that holds the sandbox package. Python starts with -S (site's .pth files cost a third
# of the start-up time), so site-packages are added by hand, last. Limits are set here, before
# the worker runs any notebook code; the worker then drops to its unprivileged uid.
BOOTSTRAP = """\
import resource, sys
sys.path[0] = sys.argv[1]
sys.path += [path for path in sys.argv[3].split(":") if path]
names = ("RLIMIT_AS", "RLIMIT_CPU", "RLIMIT_FSIZE", "RLIMIT_NOFILE", "RLIMIT_NPROC", "RLIMIT_CORE")
for name, value in zip(names, (int(v) for v in sys.argv[2].split(","))):
    if value >= 0:
        hard = value + 2 if name == "RLIMIT_CPU" else value
        resource.setrlimit(getattr(resource, name), (value, hard))
from sandbox.worker import main
sys.exit(main(sys.argv))
"""

# What the sandbox could and could not set up, for `--verbose` (nothing is shown without it).
# Facts that are the same for every notebook are said once per process (`_say_once`).
log = logging.getLogger(__name__)
_said: set[str] = set()
_said_lock = threading.Lock()


def _say_once(level: int, message: str) -> None:
    with _said_lock:
        if message in _said:
            return
        _said.add(message)
    log.log(level, "%s", message)


ENVIRONMENT = {
    "PATH": "/usr/local/bin:/usr/bin:/bin",
    "LANG": "C.UTF-8",
    "MPLBACKEND": "Agg",
    "PYTHONHASHSEED": "0",
    "TZ": "UTC",
    "PYTHONDONTWRITEBYTECODE": "1",
}


class SandboxUnavailable(Exception):
    """bubblewrap was required but cannot be used here; the message is one sentence."""


@dataclass(frozen=True)
class Limits:
    time: float = 60.0  # CPU seconds for the whole notebook (see `backstop` for wall-clock)
    memory_mb: int = 1024
    cell_time: float = 10.0  # CPU seconds for one notebook cell
    processes: int = 64  # processes (and threads) of one sandbox at once
    cpus: float = 1.0  # share of the machine's cores one sandbox may use at most

    @property
    def backstop(self) -> float:
        """Wall-clock seconds after which a notebook is stopped whatever its CPU time: only
        code that waits instead of computing gets there, even on a saturated machine."""
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
    dropped_events: int = 0  # lines that were too long, not JSON, or past the cap

    @property
    def finished(self) -> bool:
        return any(event.get("event") == "done" for event in self.events)


def bwrap_works() -> bool:
    """Whether bubblewrap is installed and can build the namespaces the sandbox uses."""
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        log.info("bubblewrap: no bwrap on PATH (%s), so it cannot be used",
                 escape.one_line(os.environ.get("PATH", ""), 500))
        return False
    flags = _namespace_flags()
    try:
        probe = subprocess.run([bwrap, *flags, "--ro-bind", "/", "/", "true"],
                               stdin=subprocess.DEVNULL, capture_output=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired) as error:
        log.info("bubblewrap: %s could not be started (%s: %s)", bwrap, type(error).__name__,
                 escape.one_line(error, 300))
        return False
    if probe.returncode != 0:
        said = escape.one_line(probe.stderr.decode("utf-8", "replace").strip(), 500)
        log.info("bubblewrap: %s %s fails here with exit status %d: %s", bwrap, " ".join(flags),
                 probe.returncode, said or "(nothing on stderr)")
        return False
    log.info("bubblewrap: %s works with %s", bwrap, " ".join(flags))
    return True


def _namespace_flags() -> list[str]:
    if os.geteuid() == 0:
        # As root no user namespace is needed, so the worker can still drop to its own uid;
        # the seccomp filter (seccomp.py) refuses new namespaces of every kind inside.
        _say_once(logging.INFO, "bubblewrap options: running as root, so no user namespace "
                  "(each notebook drops to a uid of its own; the seccomp filter refuses new "
                  "namespaces inside)")
        return ["--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts",
                "--unshare-cgroup-try", "--die-with-parent", "--new-session"]
    flags = ["--unshare-all", "--die-with-parent", "--new-session"]
    if _bwrap_supports("--disable-userns"):  # bubblewrap 0.8 and later
        flags.append("--disable-userns")
        _say_once(logging.INFO, "bubblewrap options: --disable-userns, so notebook code "
                  "cannot create user namespaces")
    else:
        _say_once(logging.INFO, "bubblewrap options: this bwrap has no --disable-userns (0.8 and "
                  "later have it); only the seccomp filter refuses new user namespaces")
    return flags


@functools.cache
def _bwrap_supports(option: str) -> bool:
    try:
        shown = subprocess.run([shutil.which("bwrap") or "bwrap", "--help"], capture_output=True,
                               text=True, timeout=20, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as error:
        log.debug("bubblewrap: `bwrap --help` could not be run (%s: %s), so %s counts as "
                  "unsupported", type(error).__name__, escape.one_line(error, 300), option)
        return False
    return option in shown.stdout + shown.stderr


@dataclass(frozen=True)
class Sandbox:
    """How worker processes are started: "bwrap" (isolated) or "plain" (reduced isolation)."""

    kind: str

    @property
    def isolated(self) -> bool:
        return self.kind == "bwrap"

    @staticmethod
    def choose(mode: str) -> Sandbox:
        """mode "auto": bubblewrap when it works, else plain; "required": bubblewrap or
        SandboxUnavailable; "off": plain (for debugging the grader only)."""
        if mode == "off":
            return Sandbox("plain")
        if bwrap_works():
            return Sandbox("bwrap")
        if mode == "required":
            raise SandboxUnavailable(
                "bubblewrap (bwrap) is not installed or cannot create namespaces here, and "
                "--sandbox=required refuses to grade without it (install the Debian package "
                "bubblewrap)")
        return Sandbox("plain")

    def command(self, folder: str, limits: Limits, results_fd: int, assignment: str,
                uid: int = UNPRIVILEGED, seccomp_fd: int | None = None) -> list[str]:
        python = sys.executable
        rlimits = ",".join(str(v) for v in (
            (limits.memory_mb + INTERPRETER_MB) * 2**20,
            int(limits.time) + 2,
            SCRATCH_BYTES,
            256,
            limits.processes if os.geteuid() == 0 else -1,
            0,
        ))
        venv = sys.prefix != sys.base_prefix
        packages = ":".join(_site_packages(VENV if venv and self.isolated else None))
        worker = [python, "-S", "-c", BOOTSTRAP, folder, rlimits, packages,
                  "--results-fd", str(results_fd), "--uid", str(uid)]
        if not self.isolated:
            return worker
        workdir = f"/course/scratch/{assignment or 'work'}"
        args = [shutil.which("bwrap") or "bwrap", *_namespace_flags(), "--clearenv"]
        if seccomp_fd is not None:
            args += ["--seccomp", str(seccomp_fd)]
        for name, value in _environment("/tmp").items():
            args += ["--setenv", name, value]
        args += ["--ro-bind", "/usr", "/usr"]
        for name in ("bin", "sbin", "lib", "lib32", "lib64", "libx32"):
            path = Path("/") / name
            if path.is_symlink():
                args += ["--symlink", os.readlink(path), str(path)]
            elif path.is_dir():
                args += ["--ro-bind", str(path), str(path)]
        made: set[str] = {"/", "/usr", "/tmp", "/proc", "/dev"}
        for real in _python_folders():
            args += _parents(real, made) + ["--ro-bind", real, real]
        if venv:  # mounted on its own, never the repository
            args += _parents(VENV, made) + ["--ro-bind", os.path.realpath(sys.prefix), VENV]
            worker[0] = f"{VENV}/bin/{os.path.basename(sys.executable)}"
        args += _parents("/grader/sandbox", made)
        args += ["--ro-bind", folder + "/sandbox", "/grader/sandbox"]
        args += _parents(workdir, made)
        if (DATA / "README.md").is_file():
            args += ["--ro-bind", str(DATA), "/course/data"]
        args += ["--proc", "/proc", "--dev", "/dev",
                 "--perms", "1777", "--size", str(TMP_BYTES), "--tmpfs", "/tmp",
                 "--perms", "1777", "--size", str(SCRATCH_BYTES), "--tmpfs", workdir,
                 "--chdir", workdir]
        return args + ["--", *worker[:4], "/grader", *worker[5:]]


_compiled_lock = threading.Lock()


def compiled_package() -> Path:
    """A private, read-only copy of the sandbox package with its bytecode compiled, made once
    per grader process: workers load it instead of compiling every module again each time
    (the sandbox's mounts are read-only and nothing may write bytecode beside the sources).
    Taken once, so every notebook of a batch runs the same probe code. Falls back to the
    package itself when no copy can be made."""
    with _compiled_lock:
        return _compiled_copy(SANDBOX_PACKAGE)


@functools.cache
def _compiled_copy(package: Path) -> Path:
    import compileall

    try:
        holder = Path(tempfile.mkdtemp(prefix="autograder-package-"))
        atexit.register(shutil.rmtree, holder, ignore_errors=True)
        copy = holder / package.name
        shutil.copytree(package, copy, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        if not compileall.compile_dir(copy, quiet=2, legacy=False):
            return package
        for folder, _, files in os.walk(holder):
            os.chmod(folder, 0o755)
            for name in files:
                os.chmod(os.path.join(folder, name), 0o644)
    except OSError:
        return package
    return copy


def _seccomp_pipe() -> int | None:
    """A pipe holding the sandbox's seccomp filter for bwrap to read, or None (unknown machine)."""
    program = seccomp.program()
    if program is None:
        _say_once(logging.WARNING, f"seccomp: no filter for this machine "
                  f"({escape.one_line(platform.machine(), 40)}; only x86-64 and AArch64 are "
                  "described), so bubblewrap runs notebooks without one")
        return None
    _say_once(logging.INFO, f"seccomp: a filter of {len(program) // 8} instructions goes to "
              "bubblewrap (--seccomp): no new namespaces, ptrace, mounts, bpf, keyrings or "
              "io_uring inside")
    read_end, write_end = os.pipe()  # a few hundred bytes: the pipe's buffer holds them
    try:
        os.write(write_end, program)
    finally:
        os.close(write_end)
    return read_end


def _environment(home: str) -> dict[str, str]:
    return {**ENVIRONMENT, "HOME": home, "MPLCONFIGDIR": home}


def _site_packages(venv_mount: str | None) -> list[str]:
    """The interpreter's site-packages folders, as the worker will see them."""
    import site

    folders = [path for path in site.getsitepackages() if os.path.isdir(path)]
    if venv_mount is None:
        return folders
    prefix = os.path.realpath(sys.prefix)
    return [venv_mount + os.path.realpath(path)[len(prefix):] for path in folders
            if os.path.realpath(path).startswith(prefix + "/")]


def _python_folders() -> list[str]:
    """Real paths of the interpreter's installation outside /usr (a venv is mounted apart)."""
    folders = []
    real = os.path.realpath(sys.base_prefix)
    if real != "/usr" and not real.startswith("/usr/"):
        folders.append(real)
    executable = os.path.realpath(sys.executable)
    inside = [*folders, "/usr", os.path.realpath(sys.prefix)]
    if not any(executable.startswith(folder + "/") for folder in inside):
        folders.append(os.path.dirname(executable))
    # Bind the outermost folders only; binding a folder inside another would hide nothing.
    folders.sort(key=len)
    kept: list[str] = []
    for folder in folders:
        if not any(folder == k or folder.startswith(k + "/") for k in kept):
            kept.append(folder)
    return kept


def _parents(path: str, made: set[str]) -> list[str]:
    """bwrap arguments creating the missing parent folders of `path`, readable by anyone
    (bubblewrap would otherwise create them readable by root only)."""
    args = []
    parts = Path(path).parts
    for depth in range(2, len(parts)):
        folder = str(Path(*parts[:depth]))
        if folder not in made:
            made.add(folder)
            args += ["--perms", "0755", "--dir", folder]
    return args


# -- processes ---------------------------------------------------------------------------

_live: set[subprocess.Popen] = set()
_live_lock = threading.Lock()
_stopping = threading.Event()


def stop_all() -> None:
    """Kill every sandbox that is running and refuse to start new ones (on Ctrl-C)."""
    _stopping.set()
    with _live_lock:
        for process in list(_live):
            _kill_group(process)


def _kill_group(process: subprocess.Popen) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


_reaping = False


def become_subreaper() -> bool:
    """Make this process adopt orphans of its children (Linux), so that a plain worker's
    descendants that escaped its process group are ended after each job. Process-wide, so
    only the command line turns it on."""
    global _reaping
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        _reaping = libc.prctl(36, 1, 0, 0, 0) == 0  # PR_SET_CHILD_SUBREAPER
    except (OSError, AttributeError):
        _reaping = False
    return _reaping


def reap_orphans() -> int:
    """Kill and reap adopted processes that are not a running sandbox; return how many."""
    me = os.getpid()
    with _live_lock:
        known = {process.pid for process in _live}
        killed = 0
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit() or int(entry.name) in known:
                continue
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            fields = stat.rsplit(")", 1)[-1].split()
            if len(fields) > 1 and fields[1] == str(me):
                pid = int(entry.name)
                try:
                    os.kill(pid, signal.SIGKILL)
                    os.waitpid(pid, 0)
                    killed += 1
                except (ProcessLookupError, ChildProcessError, PermissionError):
                    pass
    return killed


CGROUP_ROOT = Path("/sys/fs/cgroup")


class _Cgroup:
    """A control group capping the memory, the number of processes and the CPU share of one
    sandbox as a whole (rlimits only cap each process): at most `cpus` cores, and an equal
    weight beside every other sandbox, so that processes one submission starts cannot starve
    another's. Best effort: cgroup v1 or v2 when this process may create groups (root),
    otherwise nothing and the rlimits alone apply (time limits are CPU time either way)."""

    def __init__(self, memory_bytes: int, processes: int, cpus: float = 1.0) -> None:
        self.folders: list[Path] = []
        name = f"autograder-{os.getpid()}-{threading.get_ident()}-{time.monotonic_ns()}"
        if os.geteuid() != 0:
            _say_once(logging.INFO, "cgroups: not root, so no control group per notebook: "
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
                _say_once(logging.INFO, f"cgroups: v2 at {v2}, controllers enabled: "
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
                _say_once(logging.INFO, "cgroups: v1, a group per notebook in the "
                          f"{', '.join(hierarchies)} hierarchies")
            else:
                _say_once(logging.WARNING, f"cgroups: none usable: {controllers} enables "
                          f"{' '.join(sorted(enabled)) or 'no controller'} (memory and pids "
                          "are needed) and there is no v1 memory hierarchy; only the "
                          "per-process rlimits apply")
        except OSError as error:
            # Said once per place and cause, not once per notebook (each group has its own name).
            where = f" in {Path(error.filename).parent}" if error.filename else ""
            why = escape.one_line(error.strerror or error, 300)
            _say_once(logging.WARNING, f"cgroups: a control group could not be set up{where} "
                      f"({type(error).__name__}: {why}); notebooks graded without one get only "
                      "the per-process rlimits")
            self.remove()

    swept: set[Path] = set()

    def _make(self, folder: Path, limits: dict[str, int | str]) -> None:
        if folder.parent not in _Cgroup.swept:  # groups of graders that were killed
            _Cgroup.swept.add(folder.parent)
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
                _say_once(logging.DEBUG, f"cgroups: {folder.parent} has no {key}, so that "
                          "limit is not set")

    def wrap(self, command: list[str]) -> list[str]:
        """`command`, started from a shell that first moves itself into the groups."""
        if not self.folders:
            return command
        script = 'for f in "$@"; do [ "$f" = -- ] && break; echo $$ > "$f" || exit 125; ' \
                 'shift; done; shift; exec "$@"'
        procs = [str(folder / "cgroup.procs") for folder in self.folders]
        return ["/bin/sh", "-c", script, "sh", *procs, "--", *command]

    _spare: dict[tuple[int, int, float], list[_Cgroup]] = {}
    _spare_lock = threading.Lock()

    @classmethod
    def take(cls, memory_bytes: int, processes: int, cpus: float = 1.0) -> _Cgroup:
        """An empty group with these limits: one a finished sandbox gave back, or a new one
        (making and removing groups costs a sandbox's start-up a fifth again)."""
        with cls._spare_lock:
            spare = cls._spare.get((memory_bytes, processes, cpus))
            if spare:
                return spare.pop()
        return cls(memory_bytes, processes, cpus)

    def give_back(self, key: tuple[int, int, float]) -> None:
        """End every process left in the group; keep the group for the next sandbox when it is
        empty, otherwise remove it."""
        if not self.folders:
            return
        for _ in range(20):  # the sandbox's last processes may still be on their way out
            if self._empty():
                with _Cgroup._spare_lock:
                    _Cgroup._spare.setdefault(key, []).append(self)
                return
            time.sleep(0.002)
        self.remove()

    def _empty(self) -> bool:
        """Whether no process is left in the group (any that is, is killed)."""
        empty = True
        for folder in self.folders:
            try:
                for pid in (folder / "cgroup.procs").read_text().split():
                    empty = False
                    try:
                        os.kill(int(pid), signal.SIGKILL)
                    except ProcessLookupError:
                        pass
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


atexit.register(_Cgroup.remove_spares)


def sandbox_uid() -> int:
    """A fresh uid for one sandbox run."""
    return SANDBOX_UIDS.start + secrets.randbelow(len(SANDBOX_UIDS))


def _scratch_folder(assignment: str, uid: int) -> tuple[tempfile.TemporaryDirectory, Path]:
    """A private working folder for a plain (not bubblewrapped) worker, with a `data`
    link beside it so notebooks find the course data the way they do in the sandbox."""
    holder = tempfile.TemporaryDirectory(prefix="autograder-")
    root = Path(holder.name)
    workdir = root / "scratch" / (assignment or "work")
    workdir.mkdir(parents=True)
    if (DATA / "README.md").is_file():
        (root / "data").symlink_to(DATA)
    if os.geteuid() == 0:
        for folder in (root, root / "scratch", workdir):
            os.chown(folder, uid, uid)
    return holder, workdir


class _Sink:
    """Keeps the first `cap` bytes of a stream and counts the rest."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.kept = bytearray()
        self.total = 0

    def add(self, data: bytes) -> None:
        self.total += len(data)
        room = self.cap - len(self.kept)
        if room > 0:
            self.kept += data[:room]


def run(job: protocol.Job, limits: Limits, sandbox: Sandbox, assignment: str = "") -> RunResult:
    """Run one job in a fresh worker process; never raises for anything the job's code does."""
    result = RunResult()
    if _stopping.is_set():
        return result
    holder = None
    scratch = None
    uid = sandbox_uid()
    if not sandbox.isolated:
        holder, scratch = _scratch_folder(assignment, uid)
    read_end, write_end = os.pipe()
    filter_fd = _seccomp_pipe() if sandbox.isolated else None
    passed = (write_end,) if filter_fd is None else (write_end, filter_fd)
    folder = str(compiled_package().parent)
    key = ((limits.memory_mb + INTERPRETER_MB) * 2**20, limits.processes, limits.cpus)
    group = _Cgroup.take(*key)
    command = group.wrap(sandbox.command(folder, limits, write_end, assignment, uid, filter_fd))
    started = time.monotonic()
    try:
        with _live_lock:
            if _stopping.is_set():
                return result
            process = subprocess.Popen(
                command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                pass_fds=passed, start_new_session=True, close_fds=True,
                cwd=scratch, env=None if sandbox.isolated else _environment(str(scratch)))
            _live.add(process)
    except OSError:
        os.close(read_end)
        os.close(write_end)
        if filter_fd is not None:
            os.close(filter_fd)
        group.remove()
        if holder:
            holder.cleanup()
        raise
    os.close(write_end)
    if filter_fd is not None:
        os.close(filter_fd)
    stdout, stderr, events = _Sink(OUTPUT_CAP), _Sink(OUTPUT_CAP), _Sink(RESULTS_CAP)
    # All three streams were opened as pipes (subprocess.PIPE above), so none is None.
    pipes = cast("tuple[IO[bytes], IO[bytes], IO[bytes]]",
                 (process.stdin, process.stdout, process.stderr))
    try:
        result.timed_out = _pump(process, json.dumps(job).encode(), read_end,
                                 {pipes[1].fileno(): stdout, pipes[2].fileno(): stderr,
                                  read_end: events},
                                 started + limits.backstop + START_GRACE)
    finally:
        _kill_group(process)
        process.wait()
        group.give_back(key)
        with _live_lock:
            _live.discard(process)
        if _reaping:
            reap_orphans()
        for stream in pipes:
            try:
                stream.close()
            except OSError:
                pass
        if holder:
            shutil.rmtree(holder.name, ignore_errors=True)
            holder.cleanup()
    result.elapsed = time.monotonic() - started
    result.returncode = process.returncode
    result.stdout = stdout.kept.decode("utf-8", "replace")
    result.stderr = stderr.kept.decode("utf-8", "replace")
    result.stdout_bytes, result.stderr_bytes = stdout.total, stderr.total
    result.events, result.dropped_events = _parse_events(events)
    return result


def _pump(process: subprocess.Popen, payload: bytes, results_fd: int,
          sinks: dict[int, _Sink], deadline: float) -> bool:
    """Feed the job and drain all output until the worker ends; True when time ran out."""
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
            now = time.monotonic()
            if now >= deadline:
                return True
            if exited_at is None and process.poll() is not None:
                exited_at = now
            if exited_at is not None and now - exited_at > 0.5:
                break  # something outside the worker still holds a pipe open
            for key, _ in selector.select(min(deadline - now, 0.25)):
                fd = key.fd
                try:
                    if fd == stdin:
                        sent += os.write(fd, payload[sent:sent + 65536])
                        done = sent >= len(payload)
                    else:
                        data = os.read(fd, 65536)
                        sinks[fd].add(data)
                        done = not data
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
    remaining = deadline - time.monotonic()
    try:
        process.wait(timeout=max(0.0, min(remaining, 2.0)))
    except subprocess.TimeoutExpired:
        return remaining <= 2.0
    return False


def _parse_events(sink: _Sink) -> tuple[list[dict], int]:
    """Untrusted JSON lines to event dicts; anything malformed is counted, never raised."""
    events, dropped = [], 0
    lines = bytes(sink.kept).split(b"\n")
    if sink.total > len(sink.kept):
        lines.pop()  # the cut-off line
        dropped += 1
    for line in lines:
        if not line.strip():
            continue
        if len(line) > EVENT_CAP:
            dropped += 1
            continue
        try:
            event = json.loads(line)
        except (ValueError, RecursionError):
            dropped += 1
            continue
        if isinstance(event, dict):
            events.append(event)
        else:
            dropped += 1
    return events, dropped
