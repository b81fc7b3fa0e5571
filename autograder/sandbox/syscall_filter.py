"""Load the seccomp filter the grader built for a notebook's process without bubblewrap.

The grader compiles the filter with libseccomp (autograder/seccomp.py, `network_program`) and
hands it over as classic BPF on a pipe (`--seccomp FD`), as it hands bubblewrap its own filter;
the worker reads it before it forks the notebook's process, and `load` puts it on that process
before any notebook code runs. A filter stays on a process for good and passes to everything
it starts (fork and execve keep it, and no call removes it), so the programs a notebook runs
(`subprocess`, `os.system`) are held by it too. Loading it is one system call, so this module
uses ctypes, which the worker forgets again before any notebook code runs
(worker._forget_ctypes), instead of importing libseccomp in every notebook's process.
"""

from __future__ import annotations

import os

PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 38, 22, 2
INSTRUCTION_BYTES = 8  # struct sock_filter
MOST_INSTRUCTIONS = 4096  # BPF_MAXINSNS: the kernel loads no longer program


def read(fd: int) -> bytes:
    """The whole program on `fd` (a pipe the grader wrote and closed), closing it."""
    chunks = []
    try:
        while True:
            chunk = os.read(fd, 65536)
            if not chunk:
                break
            chunks.append(chunk)
    except OSError:
        return b""
    finally:
        os.close(fd)
    return b"".join(chunks)


def load(program: bytes) -> bool:
    """Put `program` on this process and all it starts from now on; False when it could not be
    loaded (not a whole program, or a kernel without seccomp filters), and nothing changed.
    Sets no_new_privs first (Landlock, when it confined this process, has set it already),
    which the kernel asks of a process that loads a filter without CAP_SYS_ADMIN, and which
    keeps a set-user-ID program from running with more rights than the notebook's."""
    count, rest = divmod(len(program), INSTRUCTION_BYTES)
    if rest or not 0 < count <= MOST_INSTRUCTIONS:
        return False
    import ctypes

    class Program(ctypes.Structure):  # struct sock_fprog
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    code = ctypes.create_string_buffer(program, len(program))
    loaded = Program(count, ctypes.cast(code, ctypes.c_void_p))
    prctl = ctypes.CDLL(None, use_errno=True).prctl
    word = ctypes.c_ulong
    if prctl(PR_SET_NO_NEW_PRIVS, word(1), word(0), word(0), word(0)) != 0:
        return False
    return prctl(PR_SET_SECCOMP, word(SECCOMP_MODE_FILTER), ctypes.byref(loaded), word(0),
                 word(0)) == 0
