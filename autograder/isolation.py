"""How a worker process is started: inside bubblewrap, or unisolated (an ordinary process).

With bubblewrap (`bwrap`, Debian package `bubblewrap`) the worker sees a read-only system
(Python, the `autograder/sandbox` folder at /grader/sandbox, the course `data/` at
/course/data), a size-limited scratch folder as its working directory, no network, and its own
process namespace, which dies with it. Without bubblewrap the same worker runs as an
ordinary process with the same resource limits, and isolation is reduced (see
`Isolation.isolated`).
In both cases the worker itself drops to an unprivileged uid of its own before any notebook
code runs. The command line is built here; `runner.py` starts it, `cgroups.py` caps it.

Words: "the sandbox" is where notebook code runs, and `autograder/sandbox/` is the code that
runs there; an `Isolation` is how this process builds it ("bwrap", or "none" for an
ordinary process); "plain" always means plain data (`sandbox/plain.py`).
"""

from __future__ import annotations

import atexit
import functools
import logging
import os
import platform
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from . import escape, seccomp
from .processes import running_sandboxes, tasks_of_uid
from .setup_log import say_once

if TYPE_CHECKING:
    from .runner import Limits

SANDBOX_PACKAGE = Path(__file__).resolve().parent / "sandbox"
DATA = Path(__file__).resolve().parent.parent / "data"
UNPRIVILEGED = 65534
VENV = "/opt/venv"  # where the grader's venv appears inside the sandbox
SCRATCH_BYTES = 64 * 1024 * 1024
TMP_BYTES = 16 * 1024 * 1024
TMP_FOLDER = "/course/tmp"  # a notebook's TMPDIR inside bubblewrap (TMP_BYTES)
# /dev/shm, where multiprocessing keeps its locks and queues (POSIX semaphores): writable in every
# mode, as it is without bubblewrap, and private to the sandbox, so nothing left there outlives it.
SHM_BYTES = 16 * 1024 * 1024
INTERPRETER_MB = 128  # address space Python itself needs on top of the memory limit

# With -c, sys.path[0] is the working directory (the scratch folder): replace it with the
# folder that holds the sandbox package. Python starts with -S (site's .pth files cost a third
# of the start-up time), so site-packages are added by hand, last. Limits are set here, before
# the worker runs any notebook code; the worker then drops to its unprivileged uid.
BOOTSTRAP = """\
import gc, resource, sys
gc.disable()  # no collections while importing: the worker enables them when it forks
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

log = logging.getLogger(__name__)  # what the sandbox could set up (setup_log.py)


ENVIRONMENT = {
    "PATH": "/usr/local/bin:/usr/bin:/bin",
    "LANG": "C.UTF-8",
    "MPLBACKEND": "Agg",
    "PYTHONHASHSEED": "0",
    "TZ": "UTC",
    "PYTHONDONTWRITEBYTECODE": "1",
    # glibc gives each new thread a malloc arena of its own, 64 MiB of address space reserved,
    # up to eight per core: under the sandbox's address-space limit, notebook code could start
    # no more than about 20 threads, far below its 64 processes. Two arenas, shared.
    "MALLOC_ARENA_MAX": "2",
}


class SandboxUnavailable(Exception):
    """bubblewrap was required but cannot be used here; the message is one sentence."""



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
        # the seccomp filter (seccomp.py) refuses new namespaces of every kind inside. The
        # worker's relay is the sandbox's first process (--as-pid-1) and reaps what notebook
        # code leaves behind, so bubblewrap leaves no process of its own for the grader's
        # parent or a container's init to reap (nbgrader's process is no subreaper).
        say_once(log, logging.INFO, "bubblewrap options: running as root, so no user namespace "
                  "(each notebook drops to a uid of its own; the seccomp filter refuses new "
                  "namespaces inside)")
        return ["--unshare-net", "--unshare-pid", "--as-pid-1", "--unshare-ipc", "--unshare-uts",
                "--unshare-cgroup-try", "--die-with-parent", "--new-session"]
    # The relay is the sandbox's first process here too: it shares the notebook's uid, and the
    # kernel delivers no signal from inside a process namespace to its first process that it
    # has not asked for, so notebook code cannot stop or kill it; and no bubblewrap process,
    # with the grader's standard streams and its own channel to bubblewrap outside, stays in
    # the sandbox for notebook code to open through /proc/1/fd.
    flags = ["--unshare-all", "--as-pid-1", "--die-with-parent", "--new-session"]
    if _bwrap_supports("--disable-userns"):  # bubblewrap 0.8 and later
        # It needs the user namespace asked for outright: --unshare-all only tries for one, and
        # bubblewrap then refuses to start at all, so the grader would fall back.
        flags += ["--unshare-user", "--disable-userns"]
        say_once(log, logging.INFO, "bubblewrap options: --disable-userns, so notebook code "
                  "cannot create user namespaces")
    else:
        say_once(log, logging.INFO, "bubblewrap options: this bwrap has no --disable-userns "
                 "(0.8 and later have it); only the seccomp filter refuses new user namespaces")
    return flags


def _processes_counted_apart(bwrap_flags: list[str]) -> bool:
    """Whether a process limit (RLIMIT_NPROC, which counts a uid's processes) counts only the
    sandbox's own: as root, where each sandbox has a uid of its own; and in a user namespace of
    the sandbox's own (bubblewrap run by an ordinary user), where the kernel counts a uid's
    processes in each namespace apart. Otherwise every notebook runs as the grader's uid, whose
    processes all count, the grader's and its other sandboxes' too, so no limit is set."""
    return os.geteuid() == 0 or "--unshare-user" in bwrap_flags


def _process_limit(bwrap_flags: list[str], limits: Limits) -> int:
    """The sandbox's RLIMIT_NPROC: `limits.processes` where its processes are counted apart,
    else `shared_process_limit`."""
    if _processes_counted_apart(bwrap_flags):
        return limits.processes
    return shared_process_limit(limits.processes * limits.sandboxes)


def shared_process_limit(budget: int) -> int:
    """RLIMIT_NPROC for a sandbox whose notebook runs as the grader's own uid (the fallback and
    `--sandbox off`, run by an ordinary user on Linux), where every process of that uid counts,
    the grader's and the user's other programs' too: so many that, with every sandbox the
    grader runs at once (each given the same), the uid never has more than `budget` (the
    sandboxes' processes all together: --jobs x the process limit) above what the user runs
    besides them now, nor more than half of what the user's own limit leaves. A fork bomb then
    stops there, and the other half stays for the grader, which starts the next sandbox, and for
    the user's machine. -1 (no limit) where the count cannot be read (no /proc: macOS), or
    where the kernel counts processes of the uid that /proc does not show (another process
    namespace: a container sharing its uid with the host's)."""
    outside = tasks_of_uid(os.getuid(), running_sandboxes())
    if outside is None or not _kernel_counts_what_proc_shows():
        return -1
    limit = share(outside, resource.getrlimit(resource.RLIMIT_NPROC)[0], budget)
    say_once(log, logging.INFO, "processes: without bubblewrap and not root, every notebook "
             "runs as this user's uid: its processes stop where the grader's sandboxes together "
             f"hold {budget} (--jobs x the process limit) or half of what the user's own process "
             "limit leaves, whichever is less")
    return limit


def share(outside: int, soft: int, budget: int) -> int:
    """The uid's task count at which a sandbox's fork fails: `outside` (the uid's tasks but the
    sandboxes') plus `budget`, or plus half of what the soft limit `soft` leaves when that is
    less. Never above `soft` (nor so above the hard limit, which is at least `soft`)."""
    if soft == resource.RLIM_INFINITY:
        return outside + budget
    return outside + min(budget, max(soft - outside, 0) // 2)


# Checks that the kernel counts no more of this uid's processes than /proc shows: a process
# allowed this many processes of the uid more than it sees starts one.
VISIBLE_CHECK = """\
import os, resource, sys
NPROC = resource.RLIMIT_NPROC
resource.setrlimit(NPROC, (int(sys.argv[1]), resource.getrlimit(NPROC)[1]))
try:
    child = os.fork()
except OSError:
    sys.exit(3)
if child == 0:
    os._exit(0)
os.waitpid(child, 0)
"""
VISIBLE_MARGIN = 16


@functools.cache
def _kernel_counts_what_proc_shows() -> bool:
    seen = tasks_of_uid(os.getuid())
    hard = resource.getrlimit(resource.RLIMIT_NPROC)[1]
    if seen is None:
        return False
    allowed = seen + VISIBLE_MARGIN
    if hard != resource.RLIM_INFINITY:
        allowed = min(allowed, hard)
    try:
        done = subprocess.run([sys.executable, "-S", "-c", VISIBLE_CHECK, str(allowed)],
                              stdin=subprocess.DEVNULL, capture_output=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired):
        return False
    if done.returncode != 0:
        say_once(log, logging.WARNING, "processes: the kernel counts processes of this user that "
                 "this grader cannot see (another process namespace: a container?), so without "
                 "bubblewrap the sandboxes have no process limit, and one notebook can start "
                 "processes until the user has none left")
    return done.returncode == 0


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
class Isolation:
    """How worker processes are started: "bwrap" (isolated) or "none" (an ordinary process, with
    reduced isolation)."""

    kind: str

    @property
    def isolated(self) -> bool:
        return self.kind == "bwrap"

    @staticmethod
    def choose(mode: str) -> Isolation:
        """mode "auto": bubblewrap when it works, else an ordinary process; "required":
        bubblewrap or SandboxUnavailable; "off": an ordinary process (for debugging the grader
        only)."""
        if mode == "off":
            return Isolation("none")
        if bwrap_works():
            return Isolation("bwrap")
        if mode == "required":
            raise SandboxUnavailable(
                "bubblewrap (bwrap) is not installed or cannot create namespaces here, and "
                "--sandbox=required refuses to grade without it (install the Debian package "
                "bubblewrap)")
        return Isolation("none")

    @property
    def shares_processes(self) -> bool:
        """Whether every sandbox's processes count against one uid's process limit, the
        grader's (run by an ordinary user, without a user namespace of bubblewrap's)."""
        return not _processes_counted_apart(_namespace_flags() if self.isolated else [])

    def process_limit(self, limits: Limits) -> int:
        """The RLIMIT_NPROC a sandbox started now gets (-1: none): `_process_limit`."""
        return _process_limit(_namespace_flags() if self.isolated else [], limits)

    def command(self, folder: str, limits: Limits, results_fd: int, assignment: str,
                uid: int = UNPRIVILEGED, seccomp_fd: int | None = None,
                process_limit: int | None = None) -> list[str]:
        """The command that starts a worker; `process_limit`, when given, is what
        `process_limit` gave for it."""
        python = sys.executable
        flags = _namespace_flags() if self.isolated else []
        rlimits = ",".join(str(v) for v in (
            (limits.memory_mb + INTERPRETER_MB) * 2**20,
            int(limits.time) + 2,
            SCRATCH_BYTES,
            256,
            _process_limit(flags, limits) if process_limit is None else process_limit,
            0,
        ))
        venv = sys.prefix != sys.base_prefix
        packages = ":".join(_site_packages(VENV if venv and self.isolated else None))
        worker = [python, "-S", "-c", BOOTSTRAP, folder, rlimits, packages,
                  "--results-fd", str(results_fd), "--uid", str(uid)]
        if not self.isolated:
            _say_landlock()
            # The worker confines itself where it can, and loads the network filter it is given.
            return [*worker, "--landlock",
                    *(["--seccomp", str(seccomp_fd)] if seccomp_fd is not None else [])]
        workdir = f"/course/scratch/{assignment or 'work'}"
        args = [shutil.which("bwrap") or "bwrap", *flags, "--clearenv"]
        if seccomp_fd is not None:
            args += ["--seccomp", str(seccomp_fd)]
        # Laid out as without bubblewrap (runner._scratch_folder), where the machine's /tmp is
        # out of a notebook's reach: its home is its working folder and its TMPDIR a folder of
        # its own, and /tmp is there but cannot be written, so a notebook that writes to /tmp
        # by name fails alike in every mode.
        for name, value in environment(workdir, TMP_FOLDER).items():
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
        args += _parents(workdir, made) + _parents(TMP_FOLDER, made)
        if (DATA / "README.md").is_file():
            args += ["--ro-bind", str(DATA), "/course/data"]
        args += ["--proc", "/proc", "--dev", "/dev",
                 "--perms", "1777", "--size", str(SHM_BYTES), "--tmpfs", "/dev/shm",
                 "--perms", "0755", "--dir", "/tmp",
                 "--perms", "1777", "--size", str(TMP_BYTES), "--tmpfs", TMP_FOLDER,
                 "--perms", "1777", "--size", str(SCRATCH_BYTES), "--tmpfs", workdir,
                 "--chdir", workdir]
        if os.geteuid() != 0:  # the sandbox's own root (and /tmp in it) would be its uid's
            args += ["--remount-ro", "/"]
        return args + ["--", *worker[:4], "/grader", *worker[5:]]


_compiled_lock = threading.Lock()


def compiled_package() -> Path:
    """A private, read-only copy of the sandbox package with its bytecode compiled, made once
    per grader process: workers load it instead of compiling every module again each time
    (the sandbox's mounts are read-only and nothing may write bytecode beside the sources).
    Bytecode that Python already wrote beside the sources is copied along and kept where it
    is up to date, so only what changed is compiled. Taken once, so every notebook of a batch
    runs the same probe code. Falls back to the package itself when no copy can be made."""
    with _compiled_lock:
        return _compiled_copy(SANDBOX_PACKAGE)


@functools.cache
def _compiled_copy(package: Path) -> Path:
    import compileall

    try:
        holder = Path(tempfile.mkdtemp(prefix="autograder-package-"))
        atexit.register(shutil.rmtree, holder, ignore_errors=True)
        copy = holder / package.name
        shutil.copytree(package, copy, ignore=_not_bytecode_of_this_python)
        if not compileall.compile_dir(copy, quiet=2, legacy=False):
            return package
        for folder, _, files in os.walk(holder):
            os.chmod(folder, 0o755)
            for name in files:
                os.chmod(os.path.join(folder, name), 0o644)
    except OSError:
        return package
    return copy


def _not_bytecode_of_this_python(folder: str, names: list[str]) -> set[str]:
    """What the copy leaves out: bytecode beside the sources (Python 2's layout) and, in
    __pycache__, bytecode of other Python versions."""
    if os.path.basename(folder) == "__pycache__":
        tag = f".{sys.implementation.cache_tag}."
        return {name for name in names if tag not in name}
    return {name for name in names if name.endswith((".pyc", ".pyo"))}


def seccomp_pipe(isolated: bool = True) -> int | None:
    """A pipe holding the sandbox's seccomp filter, or None when there is none here: for
    bubblewrap to read (`isolated`), or for the worker to load into the notebook's process
    (without bubblewrap: the network filter, seccomp.network_program)."""
    program = seccomp.program() if isolated else _network_program()
    if program is None:
        if isolated:
            say_once(log, logging.WARNING, f"seccomp: no filter for this machine "
                     f"({escape.one_line(platform.machine(), 40)}; only x86-64 and AArch64 are "
                     "described), so bubblewrap runs notebooks without one")
        return None
    if isolated:
        say_once(log, logging.INFO, f"seccomp: a filter of {len(program) // 8} instructions goes "
                 "to bubblewrap (--seccomp): no new namespaces, ptrace, mounts, bpf, keyrings, "
                 "io_uring, new session or sendmsg inside")
    read_end, write_end = os.pipe()  # a few hundred bytes: the pipe's buffer holds them
    try:
        os.write(write_end, program)
    finally:
        os.close(write_end)
    return read_end


def _network_program() -> bytes | None:
    """The fallback's network filter (seccomp.network_program), or None, saying which once."""
    try:
        program = seccomp.network_program()
    except seccomp.Unavailable as why:
        said = escape.one_line(why, 300)
        say_once(log, logging.WARNING, f"seccomp: no network filter without bubblewrap ({said}), "
                 "so UDP and unix sockets bound to a path stay open to notebook code and the "
                 "programs it runs" + ("" if landlock_abi() >= 4 else ", and so does TCP"))
        return None
    say_once(log, logging.INFO, f"seccomp: without bubblewrap each notebook's process loads a "
             f"filter of {len(program) // 8} instructions built with libseccomp, for itself and "
             f"every program it runs: {seccomp.NETWORK_REFUSALS}")
    return program


def environment(home: str, tmp: str | None = None) -> dict[str, str]:
    """The worker's environment; `tmp`, the TMPDIR of a worker without bubblewrap (whose /tmp
    is the machine's, out of its reach under Landlock)."""
    return {**ENVIRONMENT, "HOME": home, "MPLCONFIGDIR": home, **({"TMPDIR": tmp} if tmp else {})}


@functools.cache
def landlock_abi() -> int:
    """The Landlock ABI version of the running kernel, 0 without Landlock."""
    from .sandbox import landlock

    return landlock.abi()


def _say_landlock() -> None:
    version = landlock_abi()
    if version:
        extra = ["no TCP"] if version >= 4 else []
        extra += ["no signal or abstract unix socket beyond its own processes"] \
            if version >= 6 else []
        say_once(log, logging.INFO, f"landlock: ABI {version}: without bubblewrap each notebook's "
                 "process is confined with Landlock (it reads only the system's and Python's "
                 "folders, the sandbox package and data/, writes only its scratch folder"
                 + "".join(f"; {what}" for what in extra) + "), programs it runs included")
    else:
        say_once(log, logging.WARNING, "landlock: not available here (an older kernel, or not "
                 "Linux), so without bubblewrap only the guard's audit hook keeps notebook code "
                 "from the machine's files: a program a notebook runs, SQL's ATTACH and the "
                 "network are not confined")


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


