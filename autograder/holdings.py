"""What a notebook holds on the machine's disk without bubblewrap, watched while it runs, and
removed once it has ended.

With bubblewrap a notebook's working folder, its TMPDIR and /dev/shm are tmpfs of their own,
of SCRATCH_BYTES, TMP_BYTES and SHM_BYTES: a write past them fails with ENOSPC. Without it
they are folders of the machine (runner._scratch_folder), where RLIMIT_FSIZE caps each file
but nothing caps them as a whole, so one notebook could fill the disk that the notebooks
graded beside it write their probes' databases to. The grader therefore looks at them while
the notebook runs (`Watch`, from runner._pump) and stops a notebook that holds more than
bubblewrap would give it. A look visits at most MOST_ENTRIES + 1 entries (a notebook can make
a million empty files: more than MOST_ENTRIES counts as too much), and the next look comes
after LOOK_EVERY seconds, or ten times as long as the last look took, so that watching costs
the grader at most about a tenth of a core per notebook whatever it holds.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass

from .isolation import SCRATCH_BYTES, SHM_BYTES, TMP_BYTES
from .sandbox.backstop import stat_fields

MOST_BYTES = SCRATCH_BYTES + TMP_BYTES  # its working folder and TMPDIR together
MOST_ENTRIES = 10_000  # files, folders and links in them together; an honest notebook makes few
MOST_SHARED_BYTES = SHM_BYTES  # its own files in /dev/shm (as root: a uid per notebook)
MOST_FILE_BYTES = SCRATCH_BYTES  # one file (RLIMIT_FSIZE, isolation.Isolation.command)
LOOK_EVERY = 0.2  # seconds between two looks at least
COST_SHARE = 10  # the next look waits at least this many times as long as the last one took
SHARED_MEMORY = "/dev/shm"
# Entries of others in /dev/shm a look reads past before it gives up on that folder, deciding
# nothing (the machine's programs and other notebooks keep theirs there too).
MOST_SHARED_VISITS = 10 * MOST_ENTRIES

# Why a notebook was stopped, completed by scoring._missing_reason: "the notebook " + this.
TOO_MANY_BYTES = (f"wrote more than {MOST_BYTES // 2**20} MiB to its folders (its working "
                  "folder and TMPDIR), more than a notebook may hold")
TOO_MANY_ENTRIES = (f"made more than {MOST_ENTRIES:,} files and folders in its folders (its "
                    "working folder and TMPDIR), more than a notebook may hold")
UNREADABLE = ("made a folder in its working folder or TMPDIR that the grader cannot look into "
              "(nested too deep, or without read permission), which a notebook may not hold")
HIDDEN = ("started a process that hides its open files from the grader (it made itself "
          "non-dumpable), which a notebook may not do")
TOO_MUCH_SHARED = (f"wrote more than {MOST_SHARED_BYTES // 2**20} MiB to /dev/shm, more than "
                   "a notebook may hold")
TOO_MANY_SHARED = (f"made more than {MOST_ENTRIES:,} files and folders in /dev/shm, more than "
                   "a notebook may hold")


@dataclass(frozen=True)
class Held:
    """What one look found: bytes on disk (the blocks of every file and folder, a file with
    several names counted once), entries, and, when it went past a limit or could not count,
    why (one of the sentences above), else ""."""

    bytes: int
    entries: int
    over: str = ""


def measure(root: str, most_bytes: int = MOST_BYTES, most_entries: int = MOST_ENTRIES,
            owner: int | None = None) -> Held:
    """What the folder `root` holds beneath it (links are not followed), looked at until it is
    known to hold more than `most_bytes` or `most_entries`. With `owner`, only entries of that
    uid count, and only their folders are entered (/dev/shm, where every uid writes); then a
    folder that cannot be read, or more than MOST_SHARED_VISITS entries of others, end the
    look with what it found so far, deciding nothing."""
    total = entries = visits = 0
    linked: set[int] = set()  # inodes of files with several names, counted once
    todo = [root]
    too_many, too_much, unreadable = (TOO_MANY_ENTRIES, TOO_MANY_BYTES, UNREADABLE) \
        if owner is None else (TOO_MANY_SHARED, TOO_MUCH_SHARED, "")
    while todo:
        folder = todo.pop()
        try:
            with os.scandir(folder) as listing:
                for entry in listing:
                    visits += 1
                    try:
                        status = entry.stat(follow_symlinks=False)
                    except FileNotFoundError:  # removed since it was listed
                        continue
                    if owner is not None and status.st_uid != owner:
                        if visits > MOST_SHARED_VISITS:
                            return Held(total, entries)
                        continue
                    entries += 1
                    if entries > most_entries:
                        return Held(total, entries, too_many)
                    folder_entry = stat.S_ISDIR(status.st_mode)
                    if status.st_nlink > 1 and not folder_entry:
                        if status.st_ino in linked:
                            continue
                        linked.add(status.st_ino)
                    total += status.st_blocks * 512
                    if total > most_bytes:
                        return Held(total, entries, too_much)
                    if folder_entry:
                        todo.append(entry.path)
        except FileNotFoundError:  # removed since it was listed
            continue
        except OSError:  # another uid's folder, one made unreadable, or a path past PATH_MAX
            if unreadable or folder == root:
                return Held(total, entries, unreadable)
    return Held(total, entries)


def removed_but_open(root: str, pids: list[int]) -> int | None:
    """Bytes on disk of the files beneath `root` that were removed while the processes `pids`
    still hold them, open or mapped into memory (each counted once): they take their blocks
    until the last descriptor closes and the last mapping goes, out of a look's sight. A file
    a program mapped and holds no descriptor of can be looked at only by root (through
    /proc/PID/map_files); an ordinary user's grader counts it as the most a file may hold
    (MOST_FILE_BYTES). None when the grader is not root and a process's descriptors cannot
    be read though it runs as the grader's uid (it made itself non-dumpable): what it holds
    cannot be known."""
    total, counted = 0, set[int]()  # inodes: beneath `root` every file is on one file system
    prefix = os.path.join(root, "")
    for pid in pids:
        try:
            paths = _descriptors(pid, prefix)
        except PermissionError:  # as root: a container that took CAP_SYS_PTRACE away
            if os.geteuid() != 0 and not _ending(pid):
                return None
            continue
        for path in paths:
            try:
                status = os.stat(path)
            except OSError:
                continue
            if status.st_nlink == 0 and status.st_ino not in counted:
                counted.add(status.st_ino)
                total += status.st_blocks * 512
    for pid in pids:  # after every descriptor: a file open and mapped is counted exactly
        for addresses, inode in _mappings(pid, prefix):
            if inode in counted:
                continue
            try:
                status = os.stat(f"/proc/{pid}/map_files/{addresses}")
            except PermissionError:  # not root: what it holds cannot be known
                counted.add(inode)
                total += MOST_FILE_BYTES
                continue
            except OSError:
                continue
            if status.st_nlink == 0:
                counted.add(inode)
                total += status.st_blocks * 512
    return total


def _descriptors(pid: int, prefix: str) -> list[str]:
    """/proc paths of the descriptors of process `pid` that name a file beneath `prefix`;
    PermissionError when they cannot be read."""
    try:
        descriptors = os.listdir(f"/proc/{pid}/fd")
    except PermissionError:
        raise
    except OSError:  # gone
        return []
    found = []
    for descriptor in descriptors:
        path = f"/proc/{pid}/fd/{descriptor}"
        try:
            if os.readlink(path).startswith(prefix):
                found.append(path)
        except OSError:
            continue
    return found


def _ending(pid: int) -> bool:
    """Whether process `pid` is gone or ending (a zombie, or PF_EXITING among its flags): its
    descriptors can then no longer be read whoever looks."""
    fields = stat_fields(pid)
    try:
        return fields is None or fields[0] in (b"Z", b"X") or bool(int(fields[6]) & 0x4)
    except (IndexError, ValueError):
        return True


def _mappings(pid: int, prefix: str) -> list[tuple[str, int]]:
    """(addresses, inode) of what process `pid` maps of removed files beneath `prefix`, from
    /proc/PID/maps, whose lines end with the file's path and " (deleted)"."""
    try:
        with open(f"/proc/{pid}/maps", "rb") as maps:
            listed = maps.read()
    except OSError:
        return []
    wanted = os.fsencode(prefix)
    if wanted not in listed:
        return []
    found = []
    for line in listed.splitlines():
        fields = line.split(maxsplit=5)
        if len(fields) == 6 and fields[5].startswith(wanted) \
                and fields[5].endswith(b" (deleted)") and fields[4].isdigit():
            found.append((fields[0].decode("ascii", "replace"), int(fields[4])))
    return found


class Watch:
    """The looks at one running notebook's folders: `root` (its working folder and TMPDIR are
    beneath it, runner._scratch_folder), with the files there that its processes (`processes`,
    the ids of its processes, the sandbox's relay first, which is the grader's own and not
    looked into) removed but hold open or mapped, and, with `uid` (as root, a uid of the
    notebook's own), that uid's entries in /dev/shm. `look` is cheap to call often: it looks
    only when the last look is LOOK_EVERY seconds old, or COST_SHARE times as long as it took."""

    def __init__(self, root: str, uid: int | None = None,
                 clock: Callable[[], float] = time.monotonic,
                 processes: Callable[[], list[int]] = list) -> None:
        self.root, self.uid, self._clock, self._processes = root, uid, clock, processes
        self.over = ""  # why the notebook holds too much, once a look found it
        self.due = clock() + LOOK_EVERY
        self.looks = 0

    def look(self) -> str:
        """Look, when one is due: why the notebook holds too much (`over`), else ""."""
        now = self._clock()
        if self.over or now < self.due:
            return self.over
        held = measure(self.root)
        if not held.over:
            hidden = removed_but_open(self.root, self._processes()[1:])
            if hidden is None:
                held = Held(held.bytes, held.entries, HIDDEN)
            elif held.bytes + hidden > MOST_BYTES:
                held = Held(held.bytes + hidden, held.entries, TOO_MANY_BYTES)
        if not held.over and self.uid is not None:
            held = measure(SHARED_MEMORY, MOST_SHARED_BYTES, MOST_ENTRIES, owner=self.uid)
        self.looks += 1
        self.over = held.over
        done = self._clock()
        self.due = done + max(LOOK_EVERY, COST_SHARE * (done - now))
        return self.over


def remove(root: str) -> None:
    """Remove the folder `root` and all that is beneath it, however many entries and however
    deep: shutil.rmtree first, and where it leaves something (it recurses, and stops past about
    a thousand levels of folders; run as the notebook's own uid, a notebook can take the rights
    of its folders away) rm, made for it, after chmod has given the owner its rights back."""
    try:
        shutil.rmtree(root)
    except FileNotFoundError:
        return
    except (OSError, RecursionError):
        pass
    if not os.path.lexists(root):
        return
    chmod, rm = (shutil.which(name) or shutil.which(name, path=os.defpath)
                 for name in ("chmod", "rm"))
    if chmod is not None and os.geteuid() != 0:  # root reads and removes whatever the mode
        _quietly([chmod, "-R", "u+rwx", "--", root])  # links are not followed
    if rm is not None:
        _quietly([rm, "-rf", "--", root])


def _quietly(command: list[str]) -> None:
    subprocess.run(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, check=False)
