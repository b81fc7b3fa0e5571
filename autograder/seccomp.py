"""The sandbox's seccomp filters: bubblewrap's, written here with the standard library only,
and the network filter of the fallback without bubblewrap, built with libseccomp.

bubblewrap loads a classic BPF program from a file descriptor (`bwrap --seccomp FD`) and applies
it to the sandboxed process before it starts. This module writes that program: it refuses
(EPERM) the system calls a notebook never needs and that reach past the sandbox — new user or
other namespaces (`unshare`, `setns`, `clone` with a CLONE_NEW* flag), `ptrace` and the
`process_vm_*` calls, kernel keyrings, `bpf`, `userfaultfd`, `perf_event_open`, mounts,
kernel modules, `open_by_handle_at` and io_uring — a new session (`setsid`, see
SCHEDULING_GROUP) and `sendmsg` (PASSING_DESCRIPTORS), answers `clone3` with ENOSYS (its
flags cannot be inspected; the C library then falls back to `clone`), and allows everything
else.
Only x86-64 and AArch64 are described; on any other machine `program()` returns None and the
sandbox runs without a filter.

Without bubblewrap the notebook's process shares the machine's network and file system, and
Landlock (sandbox/landlock.py) covers only TCP and abstract unix sockets of the network.
`network_program()` builds the filter that closes the rest: libseccomp (Debian package
libseccomp2, through the pyseccomp package) compiles it for this machine, and the worker loads
it into the notebook's process before any notebook code runs (sandbox/syscall_filter.py), so
every program that process starts has it too. A filter cannot read a socket's address (it sees
only the numbers a call is given), so it refuses what makes one reachable instead: creating a
socket of any family, a socket pair other than a connected local stream pair, connecting, and
sending to an address; and the calls with which another process, or the kernel's io_uring,
would do it for the notebook. It also refuses what would outlive the notebook in the machine's
IPC namespace (System V IPC objects, POSIX message queues), which bubblewrap gives each sandbox
apart, a new session (SCHEDULING_GROUP) and `sendmsg` (PASSING_DESCRIPTORS). Each is refused
with EPERM (a PermissionError in Python); nothing is killed.
"""

from __future__ import annotations

import errno
import functools
import platform
import struct
import sys
import tempfile

# Classic BPF opcodes and seccomp return values (linux/filter.h, linux/seccomp.h).
_LOAD_WORD = 0x20  # BPF_LD | BPF_W | BPF_ABS
_JUMP_EQUAL = 0x15  # BPF_JMP | BPF_JEQ | BPF_K
_JUMP_AT_LEAST = 0x35  # BPF_JMP | BPF_JGE | BPF_K
_JUMP_ANY_BIT = 0x45  # BPF_JMP | BPF_JSET | BPF_K
_RETURN = 0x06  # BPF_RET | BPF_K
_ALLOW = 0x7FFF0000
_ERRNO = 0x00050000

# struct seccomp_data: int nr; __u32 arch; __u64 instruction_pointer; __u64 args[6]
_NR, _ARCH, _ARG0_LOW = 0, 4, 16

# CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER | CLONE_NEWPID |
# CLONE_NEWNET | CLONE_NEWTIME
_CLONE_NEW_ANY = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 \
    | 0x40000000 | 0x00000080

_REFUSED_NAMES = ("unshare", "setns", "ptrace", "process_vm_readv", "process_vm_writev",
                  "keyctl", "add_key", "request_key", "bpf", "userfaultfd", "perf_event_open",
                  "mount", "umount2", "pivot_root", "chroot", "init_module", "finit_module",
                  "delete_module", "kexec_load", "kexec_file_load", "open_by_handle_at",
                  "io_uring_setup", "io_uring_enter", "io_uring_register", "open_tree",
                  "move_mount", "fsopen", "fsconfig", "fsmount", "fspick", "mount_setattr",
                  "setsid", "sendmsg", "sendmmsg")
# Each sandbox is a session of its own, and so, where the kernel groups processes for the
# scheduler by session (autogroup, the default of most distributions), one scheduling group that
# shares the cores equally with every other sandbox, however many processes it starts. A process
# that made a session of its own would leave that group: 64 of them, each a group of its own,
# left an honest classmate graded beside them about 3% of a core where no control group caps a
# sandbox (an ordinary user, a container without the cpu controller). No notebook needs one.
SCHEDULING_GROUP = ("setsid",)
# A descriptor sent through a socket pair (SCM_RIGHTS) stays in flight, held by the pair and by
# no process: without bubblewrap, a removed file of the notebook's folder held that way keeps
# its blocks on the machine's disk where the watch (holdings.py) cannot see them, up to 64 MiB
# for each of the hundreds of descriptors the kernel lets a uid have in flight. Only sendmsg
# sends one, and a filter cannot tell that sendmsg from another: no notebook needs it (a pair's
# send and write still work). Refused in every mode, so that a notebook behaves alike in each.
PASSING_DESCRIPTORS = ("sendmsg", "sendmmsg")

# (AUDIT_ARCH_*, system call numbers, highest number of the native table or None)
_MACHINES = {
    "x86_64": (0xC000003E, {
        "unshare": 272, "setns": 308, "ptrace": 101, "process_vm_readv": 310,
        "process_vm_writev": 311, "keyctl": 250, "add_key": 248, "request_key": 249,
        "bpf": 321, "userfaultfd": 323, "perf_event_open": 298, "mount": 165, "umount2": 166,
        "pivot_root": 155, "chroot": 161, "init_module": 175, "finit_module": 313,
        "delete_module": 176, "kexec_load": 246, "kexec_file_load": 320,
        "open_by_handle_at": 304, "io_uring_setup": 425, "io_uring_enter": 426,
        "io_uring_register": 427, "open_tree": 428, "move_mount": 429, "fsopen": 430,
        "fsconfig": 431, "fsmount": 432, "fspick": 433, "mount_setattr": 442, "setsid": 112,
        "sendmsg": 46, "sendmmsg": 307, "clone": 56, "clone3": 435},
        0x40000000),  # x32 calls share the arch: refuse them
    "aarch64": (0xC00000B7, {
        "unshare": 97, "setns": 268, "ptrace": 117, "process_vm_readv": 270,
        "process_vm_writev": 271, "keyctl": 219, "add_key": 217, "request_key": 218,
        "bpf": 280, "userfaultfd": 282, "perf_event_open": 241, "mount": 40, "umount2": 39,
        "pivot_root": 41, "chroot": 51, "init_module": 105, "finit_module": 273,
        "delete_module": 106, "kexec_load": 104, "kexec_file_load": 294,
        "open_by_handle_at": 265, "io_uring_setup": 425, "io_uring_enter": 426,
        "io_uring_register": 427, "open_tree": 428, "move_mount": 429, "fsopen": 430,
        "fsconfig": 431, "fsmount": 432, "fspick": 433, "mount_setattr": 442, "setsid": 157,
        "sendmsg": 211, "sendmmsg": 269, "clone": 220, "clone3": 435}, None),
}


def _instruction(code: int, k: int, true: int = 0, false: int = 0) -> bytes:
    return struct.pack("=HBBI", code, true, false, k)


def program(machine: str | None = None) -> bytes | None:
    """The filter for this machine as bwrap reads it, or None when the machine is unknown."""
    described = _MACHINES.get(machine or platform.machine())
    if described is None:
        return None
    arch, numbers, foreign_from = described
    refuse = _RETURN, _ERRNO | errno.EPERM
    code = [_instruction(_LOAD_WORD, _ARCH),
            _instruction(_JUMP_EQUAL, arch, 1, 0),
            _instruction(*refuse),  # another machine's calls (i386 on x86-64): refused
            _instruction(_LOAD_WORD, _NR)]
    if foreign_from is not None:
        code += [_instruction(_JUMP_AT_LEAST, foreign_from, 0, 1), _instruction(*refuse)]
    for name in _REFUSED_NAMES:
        code += [_instruction(_JUMP_EQUAL, numbers[name], 0, 1), _instruction(*refuse)]
    code += [_instruction(_JUMP_EQUAL, numbers["clone3"], 0, 1),
             _instruction(_RETURN, _ERRNO | errno.ENOSYS),
             _instruction(_JUMP_EQUAL, numbers["clone"], 0, 3),
             _instruction(_LOAD_WORD, _ARG0_LOW),
             _instruction(_JUMP_ANY_BIT, _CLONE_NEW_ANY, 0, 1),
             _instruction(*refuse),
             _instruction(_RETURN, _ALLOW)]
    return b"".join(code)


# -- the fallback's network filter, built with libseccomp ---------------------------------

# Local pairs that stay connected to each other (asyncio's and multiprocessing's socketpair):
# a datagram pair (SOCK_DGRAM, or SOCK_RAW, which unix sockets treat as one) could send to any
# address through sendmsg, whose address this filter cannot read.
_PAIR_TYPES_REFUSED = (2, 3)  # SOCK_DGRAM, SOCK_RAW
_AF_UNIX = 1
_SOCK_TYPE_MASK = 0xF  # the type without SOCK_NONBLOCK and SOCK_CLOEXEC
# What would create, connect or send through a socket out of the filter's sight: io_uring runs
# socket, connect and sendmsg itself, and a process of the same uid (the grader's own, when it
# is not root) could be made to by tracing it, writing its memory or taking its descriptors.
_DONE_FOR_IT = ("io_uring_setup", "io_uring_enter", "io_uring_register", "ptrace",
                "process_vm_readv", "process_vm_writev", "pidfd_getfd")
# What would outlive the notebook in the machine's IPC namespace, which every sandbox without
# bubblewrap shares (bubblewrap gives each one of its own): System V shared memory, semaphores
# and message queues, and POSIX message queues. A segment left behind holds memory of the
# machine, charged to the sandbox's control group, which the next notebook given that group
# would then lack. No notebook needs them (multiprocessing's locks are files in /dev/shm).
_OUTLIVE_THE_NOTEBOOK = ("shmget", "semget", "msgget", "ipc", "mq_open")
# What `network_program` refuses, in words (for `-v` and docs/sandbox.md).
NETWORK_REFUSALS = ("no socket of any family (a connected local socketpair stays), no connect, "
                    "no send to an address, no io_uring, ptrace, process_vm_* or pidfd_getfd, "
                    "no System V IPC object or POSIX message queue, no new session, no "
                    "sendmsg (no descriptor passed through a socket pair)")


class Unavailable(Exception):
    """The fallback's filter cannot be built or loaded here; the message says why in a phrase."""


def network_program() -> bytes:
    """The fallback's filter for this machine as classic BPF (what `prctl(PR_SET_SECCOMP)`
    loads), built once per process; Unavailable when seccomp, libseccomp or pyseccomp is
    missing."""
    built = _network_program()
    if isinstance(built, Unavailable):
        raise built
    return built


@functools.cache
def _network_program() -> bytes | Unavailable:
    try:
        return _build_network_program()
    except Unavailable as why:
        return why


def _build_network_program() -> bytes:
    if not sys.platform.startswith("linux"):
        raise Unavailable("seccomp is Linux's, and this is " + platform.system())
    try:
        import pyseccomp
    except ImportError:
        raise Unavailable("the Python package pyseccomp is not installed "
                          "(requirements.txt)") from None
    except (OSError, RuntimeError, AttributeError) as error:  # pyseccomp loads libseccomp
        raise Unavailable(f"libseccomp (Debian package libseccomp2) could not be loaded "
                          f"({type(error).__name__}: {error})") from None
    refused = _kernel_refuses_filters()
    if refused:
        raise Unavailable(f"this kernel loads no seccomp filter here ({refused})")
    refuse = pyseccomp.ERRNO(errno.EPERM)
    try:
        rules = pyseccomp.SyscallFilter(pyseccomp.ALLOW)
        # Calls of another ABI of this machine (i386 or x32 on x86-64) are refused whole.
        rules.set_attr(pyseccomp.Attr.ACT_BADARCH, refuse)
        rules.add_rule(refuse, "socket")
        rules.add_rule(refuse, "socketpair", pyseccomp.Arg(0, pyseccomp.NE, _AF_UNIX))
        for kind in _PAIR_TYPES_REFUSED:
            rules.add_rule(refuse, "socketpair",
                           pyseccomp.Arg(1, pyseccomp.MASKED_EQ, _SOCK_TYPE_MASK, kind))
        rules.add_rule(refuse, "connect")
        rules.add_rule(refuse, "sendto", pyseccomp.Arg(4, pyseccomp.NE, 0))  # an address
        for name in (*_DONE_FOR_IT, *_OUTLIVE_THE_NOTEBOOK, *SCHEDULING_GROUP,
                     *PASSING_DESCRIPTORS):
            if pyseccomp.resolve_syscall(pyseccomp.Arch.NATIVE, name) >= 0:  # this libseccomp
                rules.add_rule(refuse, name)  # knows it (an older one may not know the newest)
        with tempfile.TemporaryFile() as exported:
            rules.export_bpf(exported)
            exported.seek(0)
            return exported.read()
    except OSError as error:
        raise Unavailable(f"libseccomp could not build the filter ({error})") from None


def _kernel_refuses_filters() -> str | None:
    """Why the kernel would refuse to load a filter, or None when it loads them: given no
    program, PR_SET_SECCOMP fails with EFAULT where filters work, EINVAL where the kernel has
    none (prctl(2)); nothing is loaded either way."""
    import ctypes

    prctl = ctypes.CDLL(None, use_errno=True).prctl
    mode = ctypes.c_ulong
    prctl(22, mode(2), None, mode(0), mode(0))  # PR_SET_SECCOMP, SECCOMP_MODE_FILTER
    answer = ctypes.get_errno()
    if answer == errno.EFAULT:
        return None
    return f"PR_SET_SECCOMP answers {errno.errorcode.get(answer, answer)}"
