"""Confine the notebook's process with Landlock when there is no bubblewrap (Linux 5.13 and later).

Without bubblewrap the worker is an ordinary process: the guard's audit hook sees only what
Python itself opens, not a program the notebook runs (`!cat`), SQL's `ATTACH` or a socket.
Landlock is the kernel's own access control for an unprivileged process and everything it
starts: `confine` gives the notebook's process bubblewrap's view of the file system, as far as
rules on existing folders can draw it:

- read and execute beneath the system folders (/usr, /bin, /lib, ...), the interpreter's
  folders, the sandbox package and the course's data folder;
- read beneath /proc, read and write of /dev/null, /dev/zero, /dev/full, /dev/random and
  /dev/urandom, read and write beneath /dev/shm;
- read and write beneath the notebook's scratch folder (its working folder, its TMPDIR);
- nothing else: no other file of the machine (the course's folder, the class's folders, other
  copies of the course, the grader's copy of the sandbox package are read-only or absent), no
  TCP (ABI 4), no abstract unix socket or signal outside the process's own domain (ABI 6: the
  relay and the grader cannot be signalled; the notebook's processes signal one another).

Every right the running kernel's ABI knows is handled, so what it does not grant is refused.
Nothing is done where Landlock is missing (an older kernel, a kernel built without it, macOS):
`confine` then returns 0 and the guard's audit hook is all there is.

The system calls go through ctypes, which the worker forgets again before any notebook code
runs (worker._forget_ctypes).
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # no import of typing in the sandbox at run time

if TYPE_CHECKING:
    from collections.abc import Iterable

# x86-64, AArch64 and every other architecture with the generic system call table.
SYS_CREATE_RULESET, SYS_ADD_RULE, SYS_RESTRICT_SELF = 444, 445, 446
CREATE_RULESET_VERSION = 1
RULE_PATH_BENEATH = 1
PR_SET_NO_NEW_PRIVS = 38

# File-system rights, by the ABI version that introduced them.
EXECUTE, WRITE_FILE, READ_FILE, READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
REMOVE_DIR, REMOVE_FILE, MAKE_CHAR, MAKE_DIR = 1 << 4, 1 << 5, 1 << 6, 1 << 7
MAKE_REG, MAKE_SOCK, MAKE_FIFO, MAKE_BLOCK, MAKE_SYM = 1 << 8, 1 << 9, 1 << 10, 1 << 11, 1 << 12
REFER = 1 << 13  # ABI 2: link or rename a file into another folder
TRUNCATE = 1 << 14  # ABI 3
IOCTL_DEV = 1 << 15  # ABI 5
FS_BY_ABI = {1: (1 << 13) - 1, 2: REFER, 3: TRUNCATE, 5: IOCTL_DEV}
# Network rights (ABI 4) and scopes (ABI 6).
NET_BIND_TCP, NET_CONNECT_TCP = 1 << 0, 1 << 1
SCOPE_ABSTRACT_UNIX_SOCKET, SCOPE_SIGNAL = 1 << 0, 1 << 1

# The rights that apply to a file (a rule on anything else than a folder takes only these).
FILE_RIGHTS = EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE | IOCTL_DEV
READ = EXECUTE | READ_FILE | READ_DIR
# Everything but device nodes (which need CAP_MKNOD anyway).
READ_WRITE = ((1 << 16) - 1) & ~(MAKE_CHAR | MAKE_BLOCK)

SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom")


def abi() -> int:
    """The Landlock ABI version the running kernel offers; 0 when there is none (not Linux,
    a kernel without Landlock or with it turned off, a seccomp filter that refuses it)."""
    if not sys.platform.startswith("linux"):
        return 0
    try:
        import ctypes

        syscall = ctypes.CDLL(None, use_errno=True).syscall
        syscall.restype = ctypes.c_long
        version = syscall(ctypes.c_long(SYS_CREATE_RULESET), None, ctypes.c_size_t(0),
                          ctypes.c_uint32(CREATE_RULESET_VERSION))
    except (OSError, AttributeError, ImportError):
        return 0
    return max(int(version), 0)


def rules(package: str, scratch: str) -> list[tuple[str, int]]:
    """(path, rights) of bubblewrap's view for a worker whose sandbox package is in `package`
    and whose scratch folder is `scratch`."""
    read: list[str] = []
    for path in (*SYSTEM, sys.base_prefix, sys.prefix, sys.exec_prefix,
                 os.path.dirname(sys.executable)):
        if path:
            read.append(os.path.realpath(path))
    read.append(os.path.join(package, "sandbox"))
    # The site-packages folders the grader handed the worker (isolation.BOOTSTRAP puts them on
    # sys.path; with -S, sys.prefix is the base interpreter's, not the grader's venv), which
    # bubblewrap mounts too: tzdata, which zoneinfo falls back on, is imported from there.
    read += [os.path.realpath(path) for path in sys.path[1:] if path and os.path.isdir(path)]
    data = os.path.join(scratch, "data")  # a link to the course's data/ (runner._scratch_folder)
    if os.path.exists(data):
        read.append(os.path.realpath(data))
    found = [(path, READ) for path in read if path != "/"]
    found.append(("/proc", READ_FILE | READ_DIR))
    found += [(device, READ_FILE | WRITE_FILE | TRUNCATE | IOCTL_DEV) for device in DEVICES]
    found.append(("/dev/shm", READ_WRITE))
    found.append((scratch, READ_WRITE))
    return found


def confine(package: str, scratch: str) -> int:
    """Confine this process, and all it starts from now on, to `rules(package, scratch)`;
    return the ABI version used, 0 when Landlock is missing or refused (nothing changed).
    A path that does not exist is left out. Call it once no more files need opening outside
    that view."""
    version = abi()
    if version < 1:
        return 0
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    syscall, prctl = libc.syscall, libc.prctl
    syscall.restype = ctypes.c_long

    class RulesetAttr(ctypes.Structure):
        _fields_ = [("handled_access_fs", ctypes.c_uint64),
                    ("handled_access_net", ctypes.c_uint64),
                    ("scoped", ctypes.c_uint64)]

    class PathBeneathAttr(ctypes.Structure):
        _pack_ = 1
        _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]

    handled = 0
    for introduced, rights in FS_BY_ABI.items():
        if version >= introduced:
            handled |= rights
    attr = RulesetAttr(handled, 0, 0)
    size = 8  # ABI 1 to 3 know only handled_access_fs
    if version >= 4:
        attr.handled_access_net = NET_BIND_TCP | NET_CONNECT_TCP
        size = 16
    if version >= 6:
        attr.scoped = SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL
        size = 24
    ruleset = syscall(ctypes.c_long(SYS_CREATE_RULESET), ctypes.byref(attr),
                      ctypes.c_size_t(size), ctypes.c_uint32(0))
    if ruleset < 0:
        return 0
    try:
        for path, rights in _merged(rules(package, scratch)):
            try:
                fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            except OSError:
                continue  # not on this machine
            try:
                if not _is_dir(fd):
                    rights &= FILE_RIGHTS
                beneath = PathBeneathAttr(rights & handled, fd)
                if beneath.allowed_access:
                    syscall(ctypes.c_long(SYS_ADD_RULE), ctypes.c_int(ruleset),
                            ctypes.c_int(RULE_PATH_BENEATH), ctypes.byref(beneath),
                            ctypes.c_uint32(0))
            finally:
                os.close(fd)
        if prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            return 0
        if syscall(ctypes.c_long(SYS_RESTRICT_SELF), ctypes.c_int(ruleset),
                   ctypes.c_uint32(0)) != 0:
            return 0
    finally:
        os.close(ruleset)
    return version


def _is_dir(fd: int) -> bool:
    import stat

    return stat.S_ISDIR(os.fstat(fd).st_mode)


def _merged(found: Iterable[tuple[str, int]]) -> list[tuple[str, int]]:
    """One rule per path, with the rights of every entry naming it."""
    merged: dict[str, int] = {}
    for path, rights in found:
        merged[path] = merged.get(path, 0) | rights
    return list(merged.items())
