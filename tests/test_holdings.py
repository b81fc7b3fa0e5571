"""What a notebook holds in its folders without bubblewrap (autograder/holdings.py): the look
that stops one holding more than bubblewrap gives it, and the removal afterwards."""

from __future__ import annotations

import contextlib
import ctypes
import mmap
import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from autograder import holdings
from autograder.sandbox.backstop import stat_fields

pytestmark = pytest.mark.fast


def test_a_look_counts_the_blocks_of_files_and_folders_and_a_linked_file_once(tmp_path):
    (tmp_path / "scratch").mkdir()
    (tmp_path / "scratch" / "jobs.db").write_bytes(b"x" * 3 * 2**20)
    os.link(tmp_path / "scratch" / "jobs.db", tmp_path / "scratch" / "again.db")
    (tmp_path / "data").symlink_to("/usr")  # a link is counted, never followed
    (tmp_path / "sparse").write_bytes(b"")
    os.truncate(tmp_path / "sparse", 2**30)  # a gigabyte that takes no disk
    held = holdings.measure(str(tmp_path))
    assert held.entries == 5 and held.over == ""
    assert 3 * 2**20 <= held.bytes < 3 * 2**20 + 64 * 1024


def test_a_look_past_the_bytes_or_the_entries_says_so_and_stops_there(tmp_path):
    (tmp_path / "big").write_bytes(b"x" * 2**20)
    assert holdings.measure(str(tmp_path), most_bytes=2**19).over == holdings.TOO_MANY_BYTES
    for index in range(30):
        (tmp_path / f"empty-{index}").touch()
    held = holdings.measure(str(tmp_path), most_entries=10)
    assert (held.entries, held.over) == (11, holdings.TOO_MANY_ENTRIES)


def test_a_folder_the_look_cannot_read_counts_as_too_much(tmp_path):
    """Nested past PATH_MAX (or, as the grader's own uid, without read permission): what it
    holds could not be counted."""
    deep = os.open(tmp_path, os.O_RDONLY)
    try:
        for _ in range(3000):  # names of two characters: past PATH_MAX's 4,096
            os.mkdir("ab", dir_fd=deep)
            inner = os.open("ab", os.O_RDONLY, dir_fd=deep)
            os.close(deep)
            deep = inner
    finally:
        os.close(deep)
    assert holdings.measure(str(tmp_path)).over == holdings.UNREADABLE
    holdings.remove(str(tmp_path))
    assert not tmp_path.exists()


def test_in_dev_shm_a_look_counts_only_its_owner_s_entries(tmp_path):
    (tmp_path / "mine").write_bytes(b"x" * 2**20)
    others = os.getuid() + 1
    assert holdings.measure(str(tmp_path), 2**19, owner=others) == holdings.Held(0, 0)
    assert holdings.measure(str(tmp_path), 2**19, owner=os.getuid()).over == \
        holdings.TOO_MUCH_SHARED


def test_looks_come_every_fifth_of_a_second_or_ten_times_as_long_as_one_took(tmp_path,
                                                                             monkeypatch):
    now = [100.0]
    watch = holdings.Watch(str(tmp_path), clock=lambda: now[0])
    assert (watch.look(), watch.looks) == ("", 0)  # none due yet
    now[0] += holdings.LOOK_EVERY
    assert (watch.look(), watch.looks) == ("", 1)
    assert watch.due == pytest.approx(now[0] + holdings.LOOK_EVERY)
    real = holdings.measure

    def slow(*args, **kwargs):  # a look that takes one second
        now[0] += 1.0
        return real(*args, **kwargs)

    monkeypatch.setattr(holdings, "measure", slow)
    now[0] = watch.due
    watch.look()
    assert watch.due == pytest.approx(now[0] + holdings.COST_SHARE * 1.0)
    (tmp_path / "big").write_bytes(b"x" * (holdings.MOST_BYTES + 2**20))
    now[0] = watch.due
    assert watch.look() == holdings.TOO_MANY_BYTES == watch.over


def test_removal_takes_folders_whose_rights_were_taken_away(tmp_path):
    locked = tmp_path / "root" / "locked"
    (locked / "inner").mkdir(parents=True)
    (locked / "inner" / "file").write_text("x")
    locked.chmod(0)
    holdings.remove(str(tmp_path / "root"))
    assert not Path(tmp_path / "root").exists()


@contextlib.contextmanager
def mapped_without_a_descriptor(path: Path, size: int) -> Iterator[None]:
    """`path` written with `size` bytes, mapped into this process as a program in C maps it,
    its descriptor closed and the file removed: only the mapping holds its blocks."""
    path.write_bytes(b"x" * size)
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                          ctypes.c_int, ctypes.c_long]
    libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
    descriptor = os.open(path, os.O_RDONLY)
    address = libc.mmap(None, size, mmap.PROT_READ, mmap.MAP_SHARED, descriptor, 0)
    os.close(descriptor)
    assert address not in (None, ctypes.c_void_p(-1).value)
    path.unlink()
    try:
        yield
    finally:
        libc.munmap(address, size)


def test_a_removed_file_that_is_only_mapped_is_counted(tmp_path):
    """A program can map a file, close it and remove it: its blocks stay taken, and no
    descriptor shows it."""
    with mapped_without_a_descriptor(tmp_path / "part", 3 * 2**20):
        assert os.listdir(tmp_path) == []
        hidden = holdings.removed_but_open(str(tmp_path), [os.getpid()])
    if os.geteuid() == 0:  # which looks at the file through /proc/PID/map_files
        assert 3 * 2**20 <= hidden < 3 * 2**20 + 64 * 1024
    else:
        assert hidden == holdings.MOST_FILE_BYTES


def test_a_mapped_removed_file_the_grader_cannot_look_at_counts_as_the_most_a_file_holds(
        tmp_path, monkeypatch):
    """Only root may look at a mapping's file through /proc/PID/map_files."""
    real = os.stat

    def refused(path, *args, **kwargs):
        if "/map_files/" in str(path):
            raise PermissionError(1, "Operation not permitted")
        return real(path, *args, **kwargs)

    monkeypatch.setattr(holdings.os, "stat", refused)
    with mapped_without_a_descriptor(tmp_path / "part", 2**20):
        hidden = holdings.removed_but_open(str(tmp_path), [os.getpid()])
    assert hidden == holdings.MOST_FILE_BYTES


def test_an_open_file_whose_name_only_says_deleted_is_counted_once(tmp_path):
    """A look counts a file that still has a name; what is held open is added only for files
    removed, whatever their name says."""
    named = tmp_path / "jobs (deleted)"
    named.write_bytes(b"x" * 2**20)
    removed = tmp_path / "removed"
    removed.write_bytes(b"x" * 2**20)
    with open(named, "rb"), open(removed, "rb"), open(removed, "rb"):
        removed.unlink()
        hidden = holdings.removed_but_open(str(tmp_path), [os.getpid()])
    assert 2**20 <= hidden < 2**20 + 64 * 1024


def test_a_process_that_hides_its_descriptors_from_an_ordinary_user_s_grader_is_stopped(
        tmp_path, monkeypatch):
    """Run by an ordinary user, every notebook process is the grader's uid, whose descriptors
    the grader reads unless the process made itself non-dumpable (then the kernel answers
    EACCES): what it holds open cannot be counted. The sandbox's relay (first) is the grader's
    own, and a process that is ending (here a zombie) answers EACCES too: neither counts."""
    sleeper = subprocess.Popen(["sleep", "60"])
    zombie = subprocess.Popen(["true"])
    try:
        while (stat_fields(zombie.pid) or [b"Z"])[0] != b"Z":
            time.sleep(0.01)
        hidden: list[int] = []
        real = os.listdir

        def refused(path):
            if any(str(path) == f"/proc/{pid}/fd" for pid in hidden + [zombie.pid]):
                raise PermissionError(13, "Permission denied")
            return real(path)

        monkeypatch.setattr(holdings.os, "listdir", refused)
        monkeypatch.setattr(holdings.os, "geteuid", lambda: 1000)
        now = [0.0]
        processes = [os.getpid(), sleeper.pid, zombie.pid]
        watch = holdings.Watch(str(tmp_path), clock=lambda: now[0],
                               processes=lambda: processes)
        now[0] += holdings.LOOK_EVERY
        hidden.append(os.getpid())  # the relay
        assert watch.look() == ""
        hidden.append(sleeper.pid)
        now[0] = watch.due
        assert watch.look() == holdings.HIDDEN
    finally:
        sleeper.kill()
        sleeper.wait()
        zombie.wait()
