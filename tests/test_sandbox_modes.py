"""The same submission gets the same score in every sandbox mode (docs/sandbox.md).

bubblewrap, the fallback without it (macOS, containers that cannot create namespaces) and
`--sandbox off` differ in how well they isolate student code, never in how they grade it:
notebook code sees the same standard library and course packages in each. The fallback is
made here by hiding `bwrap` from the grader's PATH, as on a machine that does not have it.
In none of them does a notebook reach a socket of the machine (bubblewrap's namespaces, or the
fallback's seccomp filter).
"""

from __future__ import annotations

import contextlib
import csv
import errno
import functools
import json
import os
import resource
import shutil
import socket
import subprocess
import sys
import tempfile
import textwrap
import uuid
from collections.abc import Iterator
from pathlib import Path

import fixtures
import nbformat
import pytest
from grader_cli import GRADER, Grades, environment_with, grade_batch

from autograder import grading, isolation, runner, seccomp
from autograder.reference import is_answer_cell, nbgrader_meta
from autograder.results import NotebookResult
from autograder.rubric import EXERCISES, exercise_for

REPOSITORY = Path(__file__).resolve().parent.parent
PLAIN = isolation.Isolation("none")
PARSE = exercise_for("01_parse_cron_field")
ANSWER = fixtures.reference_answers(PARSE)["answer_parse_cron_field"]

# What students import, each used once, so that a module the worker cannot load fails the
# answer cell (and with it every test of the exercise) instead of passing unnoticed.
STUDENT_IMPORTS = """\
import bisect, collections, csv, dataclasses, decimal, fractions, functools
import datetime as datetime_module  # the notebooks use the name datetime for the class
import hashlib, heapq, itertools, json, math, random, re, sqlite3, statistics, threading
import typing, zoneinfo
from collections import defaultdict, deque
_used = [
    bisect.bisect([1, 3], 2), collections.Counter("aab")["a"], next(csv.reader(["a,b"]))[1],
    dataclasses.is_dataclass(1), datetime_module.date(2024, 2, 29).isoformat(),
    decimal.Decimal("1.5"),
    fractions.Fraction(1, 3), functools.reduce(lambda a, b: a + b, [1, 2]),
    hashlib.sha256(b"run").hexdigest()[:8], heapq.nsmallest(1, [3, 1]), next(itertools.count(2)),
    json.loads("[1]"), math.isqrt(16), random.Random(1).random(), re.fullmatch(r"\\d+", "15"),
    sqlite3.connect(":memory:").execute("select 1").fetchone(), statistics.median([1, 2, 3]),
    threading.Lock().acquire(), typing.get_origin(list[int]),
    zoneinfo.ZoneInfo("Asia/Karachi").utcoffset(datetime_module.datetime(2024, 1, 1)),
    defaultdict(list), deque([1]),
]
"""


def student_style(exercise) -> nbformat.NotebookNode:
    """The honest answers, the first answer cell starting with the imports students use."""
    answers = fixtures.reference_answers(exercise)
    first = next(iter(answers))
    answers[first] = STUDENT_IMPORTS + "\n" + answers[first]
    return fixtures.build_submission(exercise, answers)


# An answer that guards its work with a multiprocessing lock, as a student who learnt about races
# in 07 might: multiprocessing keeps its locks (POSIX semaphores) in /dev/shm.
WITH_A_LOCK = """\
import multiprocessing

_lock = multiprocessing.Lock()
""" + ANSWER + """

_unguarded = parse_cron_field


def parse_cron_field(field, low, high):
    with _lock:
        return _unguarded(field, low, high)
"""


# An answer that keeps a log in the machine's /tmp by name, where no sandbox may write (TMPDIR
# and the working folder are the notebook's own).
WRITES_TO_TMP = """\
with open("/tmp/parse_cron_field.log", "a") as log:
    log.write("loaded\\n")
""" + ANSWER

# zoneinfo's own fallback where a machine has no time-zone database of its own (Windows, slim
# containers): the tzdata package, which the course installs (requirements.txt).
USES_TZDATA = """\
import tzdata
""" + ANSWER

# Forty threads at once, as a pool of workers might start: each reserves address space for its
# stack and its own malloc arena (64 MiB each, by default), not memory it uses.
STARTS_FORTY_THREADS = """\
import threading
_go = threading.Event()
_threads = [threading.Thread(target=_go.wait) for _ in range(40)]
for _thread in _threads:
    _thread.start()
_go.set()
for _thread in _threads:
    _thread.join()
""" + ANSWER


# An answer that is right only where a descriptor cannot be passed through a socket pair: one
# held in flight that way is held by no process, where the fallback's watch cannot see it.
PASSES_A_DESCRIPTOR = """\
import os, socket
_one, _two = socket.socketpair()
try:
    socket.send_fds(_one, [b"x"], [os.open(".", os.O_RDONLY)])
except PermissionError:
""" + textwrap.indent(ANSWER, "    ")


class MachineSockets:
    """A UDP socket on this machine's loopback and a unix socket bound in a folder every uid
    can reach, outside any sandbox's scratch folder; `reached` says, after each mode's batch,
    which of them a notebook's code or a program it ran got anything through to (what was sent
    is queued before the batch ends, so a look that does not wait finds it)."""

    def __init__(self) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="autograder-modes-sockets-"))
        self.folder.chmod(0o777)
        self.path = str(self.folder / "machine.sock")
        self.udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.unix = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.udp.bind(("127.0.0.1", 0))
        self.unix.bind(self.path)
        os.chmod(self.path, 0o777)  # so that only the sandbox can stand in the way
        self.unix.listen()
        for listener in (self.udp, self.unix):
            listener.setblocking(False)
        self.by_mode: dict[str, list[str]] = {}

    def reached(self) -> list[str]:
        found = []
        for name, take in (("udp", lambda: self.udp.recv(64)),
                           ("unix", lambda: self.unix.accept()[0].close())):
            try:
                while True:
                    take()
                    found.append(name)
            except BlockingIOError:
                pass
        return found

    def close(self) -> None:
        self.udp.close()
        self.unix.close()
        shutil.rmtree(self.folder)


# A cell that sends to both from its own Python and from a program it runs.
SENDS_OUT = '''
import subprocess
ATTEMPTS = """
import socket
for reach in (lambda: socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b"out", UDP),
              lambda: socket.socket(socket.AF_UNIX).connect(UNIX)):
    try:
        reach()
    except OSError:
        pass
"""
ADDRESSES = "UDP, UNIX = {udp!r}, {unix!r}\\n"
exec(ADDRESSES + ATTEMPTS)
subprocess.run(["python3", "-c", ADDRESSES + ATTEMPTS])
'''


@pytest.fixture(scope="module")
def machine_sockets() -> Iterator[MachineSockets]:
    sockets = MachineSockets()
    try:
        yield sockets
    finally:
        sockets.close()


@pytest.fixture(scope="module")
def scores_by_mode(tmp_path_factory, machine_sockets) -> dict[str, Grades]:
    folder = tmp_path_factory.mktemp("modes")
    submitted = folder / "submitted"
    for exercise in EXERCISES:
        fixtures.place(submitted, "honest", exercise, fixtures.honest_submission(exercise))
        fixtures.place(submitted, "student_style", exercise, student_style(exercise))
    sends_out = SENDS_OUT.format(udp=machine_sockets.udp.getsockname(), unix=machine_sockets.path)
    fixtures.place(submitted, "sends_out", PARSE, fixtures.build_submission(
        PARSE, {"answer_parse_cron_field": ANSWER}, [("answer_parse_cron_field", sends_out)]))
    fixtures.place(submitted, "with_a_lock", PARSE, fixtures.build_submission(
        PARSE, {"answer_parse_cron_field": WITH_A_LOCK}))
    fixtures.place(submitted, "writes_to_tmp", PARSE, fixtures.build_submission(
        PARSE, {"answer_parse_cron_field": WRITES_TO_TMP}))
    fixtures.place(submitted, "uses_tzdata", PARSE, fixtures.build_submission(
        PARSE, {"answer_parse_cron_field": USES_TZDATA}))
    fixtures.place(submitted, "forty_threads", PARSE, fixtures.build_submission(
        PARSE, {"answer_parse_cron_field": STARTS_FORTY_THREADS}))
    fixtures.place(submitted, "passes_a_descriptor", PARSE, fixtures.build_submission(
        PARSE, {"answer_parse_cron_field": PASSES_A_DESCRIPTOR}))
    found = {}
    modes = {"bubblewrap": (["--sandbox=required"], None),
             "fallback": (["--sandbox=auto"], environment_with(folder)),
             "off": (["--sandbox=off"], None)}
    for mode, (options, env) in modes.items():
        if mode == "bubblewrap" and not isolation.bwrap_works():
            continue
        done = grade_batch(submitted, folder / mode, "--jobs", "2", *options, env=env)
        assert done.returncode == 0, done.stderr[-2000:]
        if mode == "fallback":
            assert "bubblewrap (bwrap) is not available" in done.stderr
        found[mode] = Grades.read(folder / mode)
        machine_sockets.by_mode[mode] = machine_sockets.reached()
    return found


def test_honest_and_student_style_answers_earn_every_point_in_every_mode(scores_by_mode):
    assert set(scores_by_mode) >= {"fallback", "off"}
    for mode, grades in scores_by_mode.items():
        for exercise in EXERCISES:
            for student in ("honest", "student_style"):
                assert grades.score(student, exercise.notebook) == exercise.max_score, \
                    f"{student}'s {exercise.notebook} in mode {mode}"


def test_no_mode_lets_a_notebook_or_its_programs_reach_the_machines_sockets(scores_by_mode,
                                                                          machine_sockets):
    """UDP and a unix socket bound to a path elsewhere on the machine, from the notebook's
    Python and from `python3 -c`: bubblewrap's own network namespace and file system hide
    both; without it (the fallback, and `--sandbox off`) the seccomp filter refuses them.
    The notebook keeps every point in every mode."""
    try:
        seccomp.network_program()
    except seccomp.Unavailable as why:
        pytest.skip(f"no network filter without bubblewrap here: {why}")
    assert machine_sockets.by_mode == {mode: [] for mode in scores_by_mode}
    for mode, grades in scores_by_mode.items():
        assert grades.score("sends_out", PARSE.notebook) == PARSE.max_score, mode


def test_no_mode_lets_a_notebook_pass_a_descriptor_through_a_socket_pair(scores_by_mode):
    """Without bubblewrap a removed file sent in flight that way kept its blocks on the
    machine's disk where no look saw them (16 GiB and more); the answer is defined only where
    sendmsg is refused."""
    try:
        seccomp.network_program()
    except seccomp.Unavailable as why:
        pytest.skip(f"no network filter without bubblewrap here: {why}")
    for mode, grades in scores_by_mode.items():
        assert grades.score("passes_a_descriptor", PARSE.notebook) == PARSE.max_score, mode


def test_multiprocessing_s_locks_work_in_every_mode(scores_by_mode):
    """Locks and queues of multiprocessing live in /dev/shm: bubblewrap gives each sandbox one of
    its own that notebook code can write, as the fallback lets it write the machine's."""
    assert set(scores_by_mode) >= {"fallback", "off"}
    for mode, grades in scores_by_mode.items():
        assert grades.score("with_a_lock", PARSE.notebook) == PARSE.max_score, mode


def test_the_course_s_packages_import_alike_in_every_mode(scores_by_mode):
    """bubblewrap mounts the grader's environment; without it, that environment may lie inside
    the course's folder, which notebook code cannot read: its packages stay importable."""
    assert set(scores_by_mode) >= {"fallback", "off"}
    for mode, grades in scores_by_mode.items():
        assert grades.score("uses_tzdata", PARSE.notebook) == PARSE.max_score, mode


def test_a_notebook_starts_forty_threads_in_every_mode(scores_by_mode):
    """A thread counts against the sandbox's 64 processes, not against its memory: glibc gives
    each new thread a malloc arena of its own, 64 MiB of address space reserved, so under the
    address-space limit the 17th to 20th thread could not start (RuntimeError) in every mode."""
    assert set(scores_by_mode) >= {"fallback", "off"}
    for mode, grades in scores_by_mode.items():
        assert grades.score("forty_threads", PARSE.notebook) == PARSE.max_score, mode


def test_a_notebook_that_writes_to_tmp_by_name_fails_alike_in_every_mode(scores_by_mode):
    """Without bubblewrap the machine's /tmp is out of a notebook's reach, so bubblewrap's
    sandbox has a /tmp that cannot be written either (its TMPDIR is elsewhere): the answer cell
    raises in every mode, where it earned 25 with bubblewrap and 0 without."""
    assert set(scores_by_mode) >= {"fallback", "off"}
    assert {mode: grades.score("writes_to_tmp", PARSE.notebook)
            for mode, grades in scores_by_mode.items()} == dict.fromkeys(scores_by_mode, 0)


def test_every_mode_gives_identical_scores(scores_by_mode):
    reference = scores_by_mode.get("bubblewrap") or scores_by_mode["off"]
    for mode, grades in scores_by_mode.items():
        assert grades.rows == reference.rows, mode


# -- nothing of one notebook outlives it for the next ---------------------------------------

# Fills /dev/shm, where the fallback lets a notebook write, with as much as the sandbox's memory
# limit lets it (the limit ends it there), and leaves it there.
FILLS_SHARED_MEMORY = """
written = 0
try:
    for part in range(8):
        with open(f"/dev/shm/{marker}-{{part}}", "wb") as hog:
            for _ in range(50):
                hog.write(b"x" * 2**20)
                written += 1
except OSError as error:
    print("STOPPED", type(error).__name__)
print("LEFT", written, "MiB")
"""


@pytest.mark.skipif(os.geteuid() != 0, reason="as a grader that is not root every notebook runs "
                    "as its uid, so what one leaves in /dev/shm cannot be told from another's")
def test_what_a_notebook_leaves_in_dev_shm_goes_with_it_and_costs_a_classmate_nothing(tmp_path):
    """Files in /dev/shm are memory charged to the sandbox's control group that outlive it: left
    there, the next notebook given that group found its memory limit reached before it began,
    and an honest classmate lost every point to it. They are removed with the sandbox,
    and a group still holding shared memory is not given to the next."""
    marker = f"autograder-modes-{os.getpid()}"
    hog = FILLS_SHARED_MEMORY.format(marker=marker)
    submitted = tmp_path / "submitted"
    fixtures.place(submitted, "aaa_hog", PARSE, fixtures.build_submission(
        PARSE, {"answer_parse_cron_field": ANSWER}, [("answer_parse_cron_field", hog)]))
    classmates = ("bo", "cy", "di", "ed")
    for student in classmates:
        fixtures.place(submitted, student, PARSE, fixtures.honest_submission(PARSE))
    try:
        done = grade_batch(submitted, tmp_path / "out", "--jobs", "1", "--memory-limit", "256",
                           env=environment_with(tmp_path))
        left = sorted(name for name in os.listdir("/dev/shm") if name.startswith(marker))
    finally:
        for name in os.listdir("/dev/shm"):
            if name.startswith(marker):
                os.unlink(os.path.join("/dev/shm", name))
    assert done.returncode == 0, done.stderr[-2000:]
    assert "bubblewrap (bwrap) is not available" in done.stderr
    assert left == []
    grades = Grades.read(tmp_path / "out")
    assert {student: grades.score(student, PARSE.notebook) for student in classmates} == \
        dict.fromkeys(classmates, PARSE.max_score)


# Without bubblewrap a notebook's folders are on the machine's disk, which the notebooks graded
# beside it write their probes' databases to: one that holds more than bubblewrap gives it is
# stopped. Each waits once it has written, so that a look finds it holding what it wrote
# however fast the machine is (a wait that a cell's wall clock ends after some seconds).
WRITES_TWO_HUNDRED_MIB = """
import time
for index in range(200):
    with open(f"part-{index}", "wb") as part:
        part.write(b"x" * 2**20)
print("WROTE EVERYTHING")
time.sleep(600)
"""
MAKES_MANY_FILES = """
import time
for index in range(100_000):
    open(f"empty-{index}", "wb").close()
print("MADE EVERYTHING")
time.sleep(600)
"""


@pytest.fixture(scope="module")
def class_with_disk_hogs(tmp_path_factory) -> tuple[Path, Path, subprocess.CompletedProcess]:
    """`grade-batch --jobs 2` without bubblewrap of two honest students and two who fill their
    folders, with a TMPDIR of its own: (its output folder, that TMPDIR, the batch)."""
    folder = tmp_path_factory.mktemp("disk-hogs")
    submitted = folder / "submitted"
    for student, code in (("aaa_megabytes", WRITES_TWO_HUNDRED_MIB),
                          ("aab_files", MAKES_MANY_FILES)):
        fixtures.place(submitted, student, PARSE, fixtures.build_submission(
            PARSE, {"answer_parse_cron_field": ANSWER}, [("answer_parse_cron_field", code)]))
    for student in ("bo", "cy"):
        fixtures.place(submitted, student, PARSE, fixtures.honest_submission(PARSE))
    grader_tmp = Path(tempfile.mkdtemp(dir=folder))
    grader_tmp.chmod(0o755)  # as root, each notebook's uid reaches its folder through it
    done = grade_batch(submitted, folder / "out", "--jobs", "2",
                       env={**environment_with(folder), "TMPDIR": str(grader_tmp)})
    assert done.returncode == 0, done.stderr[-2000:]
    assert "bubblewrap (bwrap) is not available" in done.stderr
    return folder / "out", grader_tmp, done


def _feedback(out: Path, student: str) -> str:
    return (out / "students" / student / PARSE.assignment / "results.json").read_text()


def test_a_notebook_that_writes_more_than_bubblewrap_allows_is_stopped_in_the_fallback(
        class_with_disk_hogs):
    """Bubblewrap's tmpfs give a notebook 64 MiB of working folder and 16 of TMPDIR; without it
    one that wrote 200 MiB kept it all until it ended, and could fill the disk."""
    out, _, _ = class_with_disk_hogs
    grades = Grades.read(out)
    feedback = json.loads(_feedback(out, "aaa_megabytes"))
    assert grades.score("aaa_megabytes", PARSE.notebook) == 0
    assert "the notebook wrote more than 80 MiB to its folders (its working folder and TMPDIR)" \
        ", more than a notebook may hold, and was stopped" in json.dumps(feedback), feedback
    assert "stopped: the notebook wrote more than 80 MiB" in (out / "flags.csv").read_text()


def test_a_notebook_that_makes_a_hundred_thousand_files_is_stopped_in_the_fallback(
        class_with_disk_hogs):
    out, _, _ = class_with_disk_hogs
    feedback = _feedback(out, "aab_files")
    assert Grades.read(out).score("aab_files", PARSE.notebook) == 0
    assert "the notebook made more than 10,000 files and folders in its folders" in feedback


def test_classmates_graded_beside_disk_hogs_keep_every_point_and_nothing_is_left(
        class_with_disk_hogs):
    out, grader_tmp, _ = class_with_disk_hogs
    grades = Grades.read(out)
    assert {student: grades.score(student, PARSE.notebook) for student in ("bo", "cy")} == \
        dict.fromkeys(("bo", "cy"), PARSE.max_score)
    left = [path for path in grader_tmp.rglob("*") if "scratch" in path.parts]
    assert left == []


HOLDS_REMOVED_FILES_OPEN = """
import os, time
held = []
for index in range(2):
    part = open(f"part-{index}", "wb")
    os.remove(f"part-{index}")
    part.write(b"x" * 50 * 2**20)
    part.flush()
    held.append(part)
time.sleep(600)
"""


def test_a_notebook_that_holds_removed_files_open_is_stopped_in_the_fallback(tmp_path):
    """A file removed while it is open keeps its blocks on disk, where no look at the folder
    sees them (under bubblewrap they count against its tmpfs as well)."""
    result = grade_plain(tmp_path, HOLDS_REMOVED_FILES_OPEN)
    assert result.score == 0
    assert "the notebook wrote more than 80 MiB to its folders" in " ".join(result.problems), \
        result.problems


# A program in C (here Python's ctypes, which a program the notebook runs may use) maps each
# file, closes it and removes it: no descriptor is left, only the mapping.
MAPS_REMOVED_FILES = '''
import subprocess
PROGRAM = """
import ctypes, mmap, os, time
libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                      ctypes.c_int, ctypes.c_long]
for index in range(2):
    with open(f"part-{index}", "wb") as part:
        part.write(b"x" * 50 * 2**20)
    descriptor = os.open(f"part-{index}", os.O_RDONLY)
    libc.mmap(None, 50 * 2**20, mmap.PROT_READ, mmap.MAP_SHARED, descriptor, 0)
    os.close(descriptor)
    os.remove(f"part-{index}")
time.sleep(600)
"""
subprocess.run(["python3", "-c", PROGRAM])
'''


def test_a_notebook_that_maps_removed_files_is_stopped_in_the_fallback(tmp_path):
    """A mapping holds a removed file's blocks as a descriptor does; 100 MiB held that way
    went unseen, and a notebook's 64 processes could each hold about its memory limit."""
    result = grade_plain(tmp_path, MAPS_REMOVED_FILES)
    assert result.score == 0
    assert "the notebook wrote more than 80 MiB to its folders" in " ".join(result.problems), \
        result.problems


WRITES_TO_DEV_SHM = """
import time
for index in range(20):
    with open(f"/dev/shm/{marker}-{{index}}", "wb") as part:
        part.write(b"x" * 2**20)
time.sleep(600)
"""


@pytest.mark.skipif(os.geteuid() != 0, reason="as a grader that is not root every notebook runs "
                    "as its uid, so what one holds in /dev/shm cannot be told from another's")
def test_a_notebook_that_holds_more_in_dev_shm_than_bubblewrap_allows_is_stopped(tmp_path):
    """Bubblewrap gives a notebook a /dev/shm of 16 MiB; without it /dev/shm is the machine's
    memory, and, as root, each notebook's files there are told apart by their uid."""
    marker = f"autograder-modes-shm-{os.getpid()}"
    try:
        result = grade_plain(tmp_path, WRITES_TO_DEV_SHM.format(marker=marker))
    finally:
        for name in os.listdir("/dev/shm"):
            if name.startswith(marker):
                os.unlink(os.path.join("/dev/shm", name))
    assert result.score == 0
    assert "the notebook wrote more than 16 MiB to /dev/shm, more than a notebook may hold, " \
        "and was stopped" in " ".join(result.problems), result.problems


# A program the notebook runs (no audit hook there, so ctypes works) makes a System V segment
# of 64 MiB under a key of its own, touches it, and a message queue and a semaphore set.
MAKES_IPC_OBJECTS = '''
import subprocess
subprocess.run(["python3", "-c", """
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
segment = libc.shmget({key}, 64 * 2**20, 0o1600)
if segment >= 0:
    ctypes.memset(libc.shmat(segment, None, 0), 1, 64 * 2**20)
libc.msgget({key} + 1, 0o1600)
libc.semget({key} + 2, 1, 0o1600)
"""])
'''


def _ipc_keys(kind: str) -> set[int]:
    """The keys of the machine's System V objects of one kind ("shm", "msg", "sem")."""
    lines = Path(f"/proc/sysvipc/{kind}").read_text().splitlines()[1:]
    return {int(line.split()[0]) for line in lines if line.split()}


def test_a_notebook_leaves_no_system_v_ipc_object_behind(tmp_path):
    """Without bubblewrap the machine's IPC namespace is every notebook's: a shared-memory segment
    outlived the notebook that made it, holding memory charged to its sandbox's control group
    (which the next notebook given that group lacked) and of the machine. The fallback's filter
    refuses System V IPC and POSIX message queues to the notebook and every program it runs, as
    bubblewrap's IPC namespace of its own ends them with the sandbox."""
    try:
        seccomp.network_program()
    except seccomp.Unavailable as why:
        pytest.skip(f"no seccomp filter without bubblewrap here: {why}")
    key = 0x5A000000 + os.getpid() % 0x10000 * 4
    try:
        result = grade_plain(tmp_path, MAKES_IPC_OBJECTS.format(key=key))
        left = {kind: _ipc_keys(kind) & {key, key + 1, key + 2} for kind in ("shm", "msg", "sem")}
    finally:
        for option, offset in (("-M", 0), ("-Q", 1), ("-S", 2)):
            subprocess.run(["ipcrm", option, str(key + offset)], capture_output=True)
    assert left == {"shm": set(), "msg": set(), "sem": set()}
    assert result.score == PARSE.max_score and result.problems == [], result.problems


# -- the fallback keeps its limits on Linux ------------------------------------------------

@pytest.fixture(scope="module", autouse=True)
def prepared():
    assert grading.prepare((PARSE,)) == []


def grade_plain(tmp_path: Path, code: str, **limits) -> NotebookResult:
    """The honest 01 followed by a cell of the student's own, graded without bubblewrap."""
    notebook = fixtures.build_submission(PARSE, {"answer_parse_cron_field": ANSWER},
                                         [("answer_parse_cron_field", code)])
    path = tmp_path / "01_parse_cron_field.ipynb"
    nbformat.write(notebook, path)
    return grading.grade_notebook(path, grading.Options(isolation=PLAIN, **limits))


def test_fallback_limits_memory(tmp_path):
    code = ("try:\n    hog = bytearray(2 * 2**30)\n    print('ALLOCATED')\n"
            "except MemoryError:\n    print('memory limit')\n")
    result = grade_plain(tmp_path, code, memory_limit_mb=256)
    assert "memory limit" in result.stdout and "ALLOCATED" not in result.stdout
    assert result.score == PARSE.max_score


def test_fallback_stops_a_cell_that_never_ends_and_grades_the_rest(tmp_path):
    result = grade_plain(tmp_path, "while True:\n    pass\n")
    assert any("was stopped" in problem for problem in result.problems), result.problems
    assert result.score == PARSE.max_score


@pytest.mark.skipif(os.geteuid() != 0, reason="a process limit per sandbox needs root "
                    "(each sandbox gets a uid of its own)")
def test_fallback_limits_processes(tmp_path):
    code = """
import os, signal
children = []
try:
    for _ in range(500):
        pid = os.fork()
        if pid == 0:
            import time
            time.sleep(30)
            os._exit(0)
        children.append(pid)
except OSError:
    pass
print("STARTED", len(children))
for pid in children:  # end them, so that the hidden tests can start processes of their own
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
"""
    result = grade_plain(tmp_path, code, processes=16)
    started = int(result.stdout.split("STARTED", 1)[1].split()[0])
    assert started < 16 and result.score == PARSE.max_score


def test_fallback_code_sees_the_same_standard_library(tmp_path):
    notebook = student_style(exercise_for("04_run_order"))
    assert any(is_answer_cell(cell) and "import bisect" in cell.source
               for cell in notebook.cells)
    path = tmp_path / "04_run_order.ipynb"
    nbformat.write(notebook, path)
    exercise = exercise_for("04_run_order")
    assert grading.prepare((exercise,)) == []
    result = grading.grade_notebook(path, grading.Options(isolation=PLAIN))
    assert result.problems == [] and result.score == exercise.max_score, result.problems
    assert all(nbgrader_meta(c).get("grade_id") for c in notebook.cells if is_answer_cell(c))


def test_fallback_counts_the_cpu_of_an_orphan_computing_for_a_hidden_test(tmp_path):
    """A double fork leaves a grandchild whose parent ended: without bubblewrap it would be
    init's, outside the case server's tree and its CPU count, and a run_order too slow for the
    1000-job case would compute there to a full score. The notebook's process adopts it, so
    the entry earns what its slow answer alone earns."""
    entry = fixtures.read_corpus_entry(REPOSITORY / "tests/corpus/hostile/cpu_in_an_orphan.py")
    assert grading.prepare((entry.exercise,)) == []
    alone = fixtures.CorpusEntry(entry.path, entry.header, entry.answers)
    scores = []
    for name, made in (("with", entry), ("alone", alone)):
        path = tmp_path / name / f"{entry.exercise.notebook}.ipynb"
        path.parent.mkdir()
        nbformat.write(fixtures.corpus_submission(made), path)
        result = grading.grade_notebook(path, grading.Options(isolation=PLAIN))
        scores.append(result.score)
    assert 0 < scores[0] == scores[1] < entry.exercise.max_score, scores


def test_threads_the_cells_leave_running_cost_an_honest_answer_nothing(tmp_path):
    """The tests run in a child without threads, and the process with the cells' threads is
    stopped for good: a busy thread and a waiting one change nothing for a correct answer."""
    code = ("import threading\n"
            "def spin():\n"
            "    while True:\n"
            "        pass\n"
            "threading.Thread(target=spin, daemon=True).start()\n"
            "threading.Thread(target=threading.Event().wait, daemon=True).start()\n"
            "print('THREADS', threading.active_count())\n")
    result = grade_plain(tmp_path, code)
    assert "THREADS 3" in result.stdout
    assert result.score == PARSE.max_score and result.problems == [], result.problems


def test_when_the_tests_process_is_ended_the_stopped_cells_process_holds_nothing_up(tmp_path):
    """With the cells' threads left behind in the stopped notebook process, a hidden test that
    ends the process running the tests ends the grading of the notebook there and then: the
    relay waits for that process, not for the stopped one (which the grader's backstop would
    end only after every hidden test's wall-clock allowance)."""
    code = ("import os, signal, threading\n"
            "threading.Thread(target=threading.Event().wait, daemon=True).start()\n"
            "def parse_cron_field(*args):\n"
            "    os.kill(os.getppid(), signal.SIGKILL)\n"
            "    threading.Event().wait(20)  # no answer: this test ends with that process\n")
    result = grade_plain(tmp_path, code)
    assert result.score < PARSE.max_score
    assert not any("waiting" in problem for problem in result.problems), result.problems


# -- run by an ordinary user, the fallback's sandboxes share the user's processes ------------

SPARE_PROCESSES = 200  # the user's process limit for the batch: what runs already, and these


def tasks_of(uid: int) -> int:
    """The tasks (processes and threads) of the real uid `uid`, which RLIMIT_NPROC counts."""
    count = 0
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            fields = dict(line.split(":", 1) for line in status.read_text().splitlines())
        except (OSError, ValueError):
            continue
        if int(fields["Uid"].split()[0]) == uid:
            count += int(fields["Threads"])
    return count


STARTS_ITSELF = "import subprocess, sys; subprocess.run([sys.executable, '-c', ''], check=True)"


# The uids these tests run the grader as, as root: each test claims one of its own (a file
# per uid in use, as the grader claims its sandboxes' uids), so that suites running at once on
# one machine never count each other's processes against a test's tiny process limit.
ORDINARY_UIDS = range(64_900, 65_000)
UID_CLAIMS = Path(tempfile.gettempdir()) / "autograder-test-uids"


def _claimed_uid() -> int:
    UID_CLAIMS.mkdir(mode=0o700, exist_ok=True)
    for uid in ORDINARY_UIDS:
        try:
            os.close(os.open(UID_CLAIMS / str(uid), os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        except FileExistsError:
            continue
        if tasks_of(uid) == 0:
            return uid
        # Processes of it are still about (a test's grader ending, a run that was killed):
        # another, and this one stays free for later.
        (UID_CLAIMS / str(uid)).unlink(missing_ok=True)
    pytest.fail(f"every uid of {ORDINARY_UIDS} is claimed in {UID_CLAIMS} or runs processes: "
                "remove the claims of test runs that were killed")


def as_an_ordinary_user(folder: Path, uid: int) -> list[str]:
    """How to run the grader as an ordinary user: as this one, or, as root, with setpriv as
    `uid`, which nothing else runs as (so that only the batch counts against its process
    limit), when that uid can run this Python (the test skips otherwise)."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    become = [setpriv or "setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups"]
    # It starts this Python again as the grader starts its workers (setpriv itself runs it
    # even where that uid could not).
    if setpriv is None or subprocess.run(
            [*become, sys.executable, "-c", STARTS_ITSELF], capture_output=True,
            cwd=folder).returncode != 0:
        pytest.skip(f"uid {uid} cannot reach this Python's folders (they lie where only root "
                    "can look), so it cannot run the grader")
    return become


@contextlib.contextmanager
def folder_of_an_ordinary_user() -> Iterator[tuple[Path, list[str], int]]:
    """A folder every uid can write, how to run the grader as an ordinary user
    (`as_an_ordinary_user`), and that user's uid: this process's own, or as root one claimed
    for this test alone."""
    folder = Path(tempfile.mkdtemp())
    uid = _claimed_uid() if os.geteuid() == 0 else os.getuid()
    try:
        folder.chmod(0o777)
        yield folder, as_an_ordinary_user(folder, uid), uid
    finally:
        shutil.rmtree(folder, ignore_errors=True)
        if os.geteuid() == 0:
            (UID_CLAIMS / str(uid)).unlink(missing_ok=True)


def grader_as(become: list[str], folder: Path, processes: int,
              *arguments: str) -> subprocess.CompletedProcess:
    """`python -m autograder ARGUMENTS` run as `become` says, without bubblewrap, the user's
    process limit (RLIMIT_NPROC) lowered to `processes`."""
    return subprocess.run(
        [*become, *GRADER, *arguments], cwd=REPOSITORY, capture_output=True, text=True,
        timeout=900, env=environment_with(folder),
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_NPROC, (processes, processes)))


def grade_class_as(become: list[str], folder: Path, uid: int, submitted: Path,
                   *markers: str) -> tuple[subprocess.CompletedProcess, Path]:
    """`grade-batch --jobs 2` of `submitted` run by the ordinary user `uid` without bubblewrap
    (`grader_as`, the user's limit SPARE_PROCESSES above what it runs), and its output folder;
    the files `markers` are removed afterwards (without bubblewrap, /dev/shm is the machine's)."""
    out = folder / "out"
    try:
        done = grader_as(become, folder, tasks_of(uid) + SPARE_PROCESSES, "grade-batch",
                         str(submitted), "--out", str(out), "--jobs", "2", "--sandbox", "auto")
    finally:
        for marker in markers:
            Path(marker).unlink(missing_ok=True)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "bubblewrap (bwrap) is not available" in done.stderr
    return done, out


def notes_of(out: Path) -> dict[str, str]:
    """The note column of grades.csv in `out`, by student, for 01."""
    with open(out / "grades.csv", newline="", encoding="utf-8") as handle:
        return {row["student"]: row["note"] for row in csv.DictReader(handle)
                if row["notebook"] == PARSE.notebook}


def test_a_notebook_graded_by_an_ordinary_user_leaves_the_user_half_of_the_processes(tmp_path):
    """Without bubblewrap, run by an ordinary user, a notebook runs as the user's uid, under the
    user's process limit (lowered here): it stops at half of what the user had left (at most
    the process limit of 64 here, with --jobs 1), so the grader and the user's other programs
    can still start theirs."""
    with folder_of_an_ordinary_user() as (folder, become, uid):
        limit = tasks_of(uid) + SPARE_PROCESSES
        path = folder / "01_parse_cron_field.ipynb"
        code = fixtures.starts_processes(SPARE_PROCESSES, SPARE_PROCESSES // 2)
        nbformat.write(fixtures.build_submission(PARSE, {"answer_parse_cron_field": ANSWER},
                                                 [("answer_parse_cron_field", code)]), path)
        results = folder / "results.json"
        done = grader_as(become, folder, limit, "grade", str(path), "--results", str(results),
                         "--jobs", "1")
        assert done.returncode == 0, done.stderr[-3000:]
        graded = json.loads(results.read_text())
        assert graded["score"] == PARSE.max_score, graded["tests"][0]["output"]


# The processes of the grader's other sandboxes (each started with --results-fd, as the user's
# uid: those of other graders on the machine do not count), as notebook code without
# bubblewrap sees them in /proc.
OTHER_SANDBOXES = '''
import os, threading, time

def _other_sandboxes(mine):
    found = set()
    for name in os.listdir("/proc"):
        if name.isdigit() and int(name) not in mine:
            try:
                with open(f"/proc/{name}/cmdline", "rb") as listing:
                    started = b"--results-fd" in listing.read()
                with open(f"/proc/{name}/status", "rb") as status:
                    uid = next(line.split()[1] for line in status if line.startswith(b"Uid:"))
                if started and int(uid) == os.getuid():
                    found.add(int(name))
            except (OSError, StopIteration, ValueError):
                pass
    return found
'''

# Starts processes until it cannot (they wait, using no CPU), says so with the file MARKED, and
# holds them while its cells run: until every other sandbox that was there then has ended (and
# then removes the file). Its answer is wrong when it got as many as half of the user's
# processes.
HOLDS_EVERY_PROCESS = OTHER_SANDBOXES + fixtures.starts_processes(
    SPARE_PROCESSES, SPARE_PROCESSES // 2, holding='''
open("MARKED", "w").close()
_mine = {os.getpid(), os.getppid(), *children}
_there = _other_sandboxes(_mine)
while _there & _other_sandboxes(_mine):
    time.sleep(0.05)
os.unlink("MARKED")
''')

# An honest answer whose extra cell, graded beside others, waits until the notebook above says
# (in the file MARKED) that it holds every process it could get, and then takes what is left
# with threads that wait: a few at most, for every sandbox has the same limit. Its hidden tests
# then start while the user has no process left, whatever the speed of the machine. Graded
# alone, it does nothing.
WAITS_UNTIL_NONE_IS_LEFT = OTHER_SANDBOXES + '''
_mine = {os.getpid(), os.getppid()}
while _other_sandboxes(_mine) and not os.path.exists("MARKED"):
    time.sleep(0.01)
_threads = []
while os.path.exists("MARKED") and _other_sandboxes(_mine):
    try:
        _threads.append(threading.Thread(target=threading.Event().wait, daemon=True))
        _threads[-1].start()
    except RuntimeError:  # no thread can be started
        break
'''

# Claims, on every descriptor it has, that the grader could not start a process for it.
CLAIMS_NO_PROCESS = '''
import json, os
_claim = ("\\n" + json.dumps({"fork_failed": "EAGAIN"}) + "\\n").encode()
for _fd in range(3, 64):
    try:
        os.write(_fd, _claim)
    except OSError:
        pass
'''


def test_a_notebook_holding_every_process_costs_no_classmate_a_point_in_the_fallback():
    """Without bubblewrap, run by an ordinary user, every notebook runs as the grader's uid, and
    the user's process limit (lowered here) is the only one. A notebook that holds every process
    it can get stops at the sandboxes' share (half of what the user has left), so the grader
    goes on; a classmate whose tests could then not start is graded again alone once the rest
    is done, and earns every point, the instructor told why; a notebook that only claims that
    the grader could not start a process gets that one second try, and no score."""
    with folder_of_an_ordinary_user() as (folder, become, uid):
        submitted = folder / "submitted"
        with_cell = functools.partial(fixtures.build_submission, PARSE,
                                      {"answer_parse_cron_field": ANSWER})
        marked = f"/dev/shm/autograder-test-{uuid.uuid4().hex}"
        for student, code in (("a_holds", HOLDS_EVERY_PROCESS.replace("MARKED", marked)),
                              ("b_waits", WAITS_UNTIL_NONE_IS_LEFT.replace("MARKED", marked)),
                              ("c_claims", CLAIMS_NO_PROCESS)):
            fixtures.place(submitted, student, PARSE,
                           with_cell([("answer_parse_cron_field", code)]))
        for number in (1, 2, 3):
            fixtures.place(submitted, f"honest_{number}", PARSE,
                           fixtures.honest_submission(PARSE))
        done, out = grade_class_as(become, folder, uid, submitted, marked)
        grades = Grades.read(out)
        for student in ("a_holds", "b_waits", "honest_1", "honest_2", "honest_3"):
            assert grades.score(student, PARSE.notebook) == PARSE.max_score, \
                (student, done.stderr[-3000:])
        assert grades.score("c_claims", PARSE.notebook) == 0
        notes = notes_of(out)
        assert "graded again alone" in notes["b_waits"], notes
        assert "even when graded alone" in notes["c_claims"], notes
        with open(out / "not-graded.csv", newline="", encoding="utf-8") as handle:
            listed = {row["student"]: row["reason"] for row in csv.DictReader(handle)}
        assert set(listed) == {"c_claims"} and "process" in listed["c_claims"], listed
        again = [line for line in done.stderr.splitlines() if line.startswith("[again")]
        assert sum("c_claims" in line for line in again) == 1, done.stderr[-3000:]
        assert any("b_waits" in line for line in again), done.stderr[-3000:]


# Holds every process it can get, as HOLDS_EVERY_PROCESS, until the classmate below says (with
# the file MARKED.tried) that it tried to start its threads, or every other sandbox that was
# there has ended, and then for 2 s more, as a notebook that holds them does (the grader looks
# at the uid's tasks every 0.2 s: a shorter hold it may not see, and then a report that a
# thread could not start buys no second grading); then it ends them, and only then removes
# MARKED.
HOLDS_UNTIL_TRIED = OTHER_SANDBOXES + fixtures.starts_processes(
    SPARE_PROCESSES, SPARE_PROCESSES // 2, holding='''
open("MARKED", "w").close()
_mine = {os.getpid(), os.getppid(), *children}
_there = _other_sandboxes(_mine)
while not os.path.exists("MARKED.tried") and _there & _other_sandboxes(_mine):
    time.sleep(0.05)
time.sleep(2)
for pid in children:
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
children.clear()
os.unlink("MARKED")
''')

# Honest code that starts 8 threads (a notebook may start them in every sandbox mode) and waits
# for them, as a student might to try a parser on several inputs at once.
STARTS_THREADS = """\
import threading
_go, _threads = threading.Event(), []
try:
    for _ in range(8):
        _thread = threading.Thread(target=_go.wait)
        _thread.start()
        _threads.append(_thread)
finally:
    _go.set()
    for _thread in _threads:
        _thread.join()
"""

# STARTS_THREADS at the top of an answer cell, graded beside others: it first waits until the
# notebook above holds every process (the file MARKED), and when it has tried, says so
# (MARKED.tried) and waits until that notebook has let them go. So its own threads cannot
# start, and its hidden tests start once there are processes again, whatever the speed of
# the machine. Graded alone, it waits for nothing, and its threads start.
CROWDED_OUT = OTHER_SANDBOXES + """
_mine = {os.getpid(), os.getppid()}
while _other_sandboxes(_mine) and not os.path.exists("MARKED"):
    time.sleep(0.01)
try:
""" + textwrap.indent(STARTS_THREADS, "    ") + """\
finally:
    if os.path.exists("MARKED"):
        open("MARKED.tried", "w").close()
        while os.path.exists("MARKED"):
            time.sleep(0.01)
"""


def test_a_classmate_whose_own_threads_a_notebook_crowded_out_is_graded_again_alone():
    """Without bubblewrap, run by an ordinary user, every notebook draws on one share of the
    user's processes (the user's limit lowered here). While a notebook holds all it can get, a
    classmate's own code cannot start the threads it would start anywhere else; the classmate
    is graded again alone once the rest is done, earns every point, and the instructor is told
    why. Notebooks that earned every point are not graded again."""
    with folder_of_an_ordinary_user() as (folder, become, uid):
        submitted = folder / "submitted"
        marked = f"/dev/shm/autograder-test-{uuid.uuid4().hex}"
        fixtures.place(submitted, "a_holds", PARSE, fixtures.build_submission(
            PARSE, {"answer_parse_cron_field": ANSWER},
            [("answer_parse_cron_field", HOLDS_UNTIL_TRIED.replace("MARKED", marked))]))
        fixtures.place(submitted, "b_threads", PARSE, fixtures.build_submission(
            PARSE, {"answer_parse_cron_field": CROWDED_OUT.replace("MARKED", marked)
                    + ANSWER}))
        for number in (1, 2):
            fixtures.place(submitted, f"honest_{number}", PARSE,
                           fixtures.honest_submission(PARSE))
        done, out = grade_class_as(become, folder, uid, submitted, marked, f"{marked}.tried")
        grades = Grades.read(out)
        for student in ("a_holds", "b_threads", "honest_1", "honest_2"):
            assert grades.score(student, PARSE.notebook) == PARSE.max_score, \
                (student, done.stderr[-3000:])
        notes = notes_of(out)
        # Which start fails is up to the race: the classmate's own threads (COULD_NOT_START,
        # CROWDED) or, when the small shared limit is still taken as the grader starts the
        # process that runs its hidden tests, that process (GRADED_AGAIN, seen once in CI);
        # either way it is graded again alone and the note says why.
        assert any(reason in notes["b_threads"] for reason in (
            grading.CROWDED, grading.COULD_NOT_START, grading.GRADED_AGAIN)), notes
        again = {line.split("] ", 1)[1].split("/", 1)[0]
                 for line in done.stderr.splitlines() if line.startswith("[again")}
        assert "b_threads" in again, done.stderr[-3000:]
        # The same race can catch an honest classmate started while the share is still held:
        # the grader cannot start its own process for it (seen once in CI), and it too is
        # graded again alone, told so. The notebook that holds the share earns every point at
        # once and is never graded again; nor is any other without that reason.
        assert "a_holds" not in again and "graded again" not in notes["a_holds"], notes
        for student in ("honest_1", "honest_2"):
            assert (student in again) == (grading.GRADED_AGAIN in notes[student]), \
                (student, notes, done.stderr[-3000:])


# A program the notebook runs makes itself non-dumpable (ctypes works there), so that a grader
# run by an ordinary user cannot read its descriptors, and holds 100 MiB of removed files open.
HIDES_REMOVED_FILES = f"""
import subprocess
PROGRAM = "import ctypes\\nctypes.CDLL(None).prctl(4, 0, 0, 0, 0)\\n"  # PR_SET_DUMPABLE, 0
subprocess.run(["python3", "-c", PROGRAM + {HOLDS_REMOVED_FILES_OPEN!r}])
"""


def test_a_notebook_that_hides_what_it_holds_from_an_ordinary_user_s_grader_is_stopped():
    """Run by an ordinary user, the grader reads a notebook's descriptors as the same uid,
    unless a process made itself non-dumpable: such a process held removed files unseen. The
    honest classmate graded beside it (whose relay is non-dumpable by design) keeps every
    point."""
    with folder_of_an_ordinary_user() as (folder, become, uid):
        submitted = folder / "submitted"
        fixtures.place(submitted, "aaa_hides", PARSE, fixtures.build_submission(
            PARSE, {"answer_parse_cron_field": ANSWER},
            [("answer_parse_cron_field", HIDES_REMOVED_FILES)]))
        fixtures.place(submitted, "bo", PARSE, fixtures.honest_submission(PARSE))
        _, out = grade_class_as(become, folder, uid, submitted)
        grades = Grades.read(out)
        assert (grades.score("aaa_hides", PARSE.notebook), grades.score("bo", PARSE.notebook)) \
            == (0, PARSE.max_score)
        assert "the notebook started a process that hides its open files from the grader" \
            in _feedback(out, "aaa_hides")


def test_a_notebook_with_a_bug_is_graded_once_where_no_process_was_short():
    """Run by an ordinary user without bubblewrap, with the user's process limit lowered, a
    notebook that loses points to its own bug beside classmates who hold only what honest work
    needs (one of them 8 threads) is graded once: its score stands, with no note."""
    with folder_of_an_ordinary_user() as (folder, become, uid):
        submitted = folder / "submitted"
        fixtures.place(submitted, "a_bug", PARSE, fixtures.submission_for(
            PARSE, "wrong/01_parse_cron_field/duplicates_kept"))
        fixtures.place(submitted, "b_threads", PARSE, fixtures.build_submission(
            PARSE, {"answer_parse_cron_field": STARTS_THREADS + ANSWER}))
        fixtures.place(submitted, "c_honest", PARSE, fixtures.honest_submission(PARSE))
        done, out = grade_class_as(become, folder, uid, submitted)
        assert 0 < Grades.read(out).score("a_bug", PARSE.notebook) < PARSE.max_score
        notes = notes_of(out)
        assert "graded again" not in notes["a_bug"], notes
        assert not any(line.startswith("[again") for line in done.stderr.splitlines()), \
            done.stderr[-3000:]


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root: run by an ordinary user without "
                    "bubblewrap, the uid is the grader's, where the report may be true")
def test_a_report_that_the_grader_could_not_start_a_process_is_flagged_where_it_cannot_be_true(
        tmp_path):
    """As root each sandbox has a uid of its own (and with bubblewrap a user namespace of its
    own): no other process can take its processes, so the notebook process never says that it
    could not start one, and such a report is notebook code's: flagged, and it changes nothing."""
    result = grade_plain(tmp_path, CLAIMS_NO_PROCESS)
    assert result.score == PARSE.max_score and not result.out_of_processes
    assert any("could not start a process" in flag for flag in result.flags), result.flags


def test_a_notebook_whose_worker_the_grader_cannot_start_is_graded_again_alone(tmp_path,
                                                                               monkeypatch):
    """When the grader cannot start a notebook's worker (EAGAIN: its user has no process left),
    that is the grader's failure, said in one sentence; `grade` grades the notebook again once
    the others are done. If that fails too it is not graded, with the reason, never a 0 that
    blames the notebook."""
    notebook = fixtures.honest_submission(PARSE)
    path = tmp_path / "01_parse_cron_field.ipynb"
    nbformat.write(notebook, path)
    start = runner.start
    failures = []

    def fails_at_first(*args, **kwargs):
        if len(failures) < failing:
            failures.append(args)
            raise BlockingIOError(errno.EAGAIN, "Resource temporarily unavailable")
        return start(*args, **kwargs)

    monkeypatch.setattr(runner, "start", fails_at_first)
    failing = 1
    [result] = grading.grade_notebooks([path], grading.Options(isolation=PLAIN), 1)
    assert len(failures) == 1 and result.score == PARSE.max_score
    assert result.graded_again == grading.GRADED_AGAIN and not result.grader_failed
    failures.clear()
    failing = 2
    [result] = grading.grade_notebooks([path], grading.Options(isolation=PLAIN), 1)
    assert len(failures) == 2 and result.score == 0
    assert result.grader_failed and result.out_of_processes and not result.readable
    assert result.problems == [grading.STILL_OUT_OF_PROCESSES]
    assert all(test.output == f"not graded: {grading.STILL_OUT_OF_PROCESSES}"
               for item in result.items for test in item.tests)


@pytest.mark.parametrize("shared", [True, False], ids=["uid shared", "uid of its own"])
def test_a_notebook_crowded_out_of_its_processes_is_graded_again_alone_once(tmp_path, monkeypatch,
                                                                          shared):
    """Where every sandbox's processes count against the grader's uid, a notebook that did not
    earn every point while the grader saw another notebook fill their share (`crowded`) is
    graded again alone once the rest is done, once only, and that result is kept, with the
    reason; one that earned every point, whose uid is its own (root, bubblewrap) or that ran
    beside no other (--jobs 1), is not."""
    honest, wrong = tmp_path / "honest", tmp_path / "wrong"
    for folder, made in ((honest, fixtures.honest_submission(PARSE)),
                         (wrong, fixtures.submission_for(
                             PARSE, "wrong/01_parse_cron_field/duplicates_kept"))):
        folder.mkdir()
        nbformat.write(made, folder / "01_parse_cron_field.ipynb")
    real_run = runner.run
    runs: list[str] = []

    def crowded_every_time(job, *args, **kwargs):
        run = real_run(job, *args, **kwargs)
        runs.append("crowded")
        run.crowded = True
        return run

    monkeypatch.setattr(runner, "run", crowded_every_time)
    monkeypatch.setattr(isolation.Isolation, "shares_processes", property(lambda self: shared))
    options = grading.Options(isolation=PLAIN, jobs=2)
    [result] = grading.grade_notebooks([wrong / "01_parse_cron_field.ipynb"], options, 1)
    assert 0 < result.score < PARSE.max_score  # its own bug, alone as beside others
    assert len(runs) == (2 if shared else 1)
    assert result.graded_again == (grading.CROWDED if shared else "")
    assert not result.grade_alone and not result.grader_failed
    runs.clear()
    [result] = grading.grade_notebooks([honest / "01_parse_cron_field.ipynb"], options, 1)
    assert result.score == PARSE.max_score and len(runs) == 1 and not result.graded_again
    runs.clear()
    [result] = grading.grade_notebooks([wrong / "01_parse_cron_field.ipynb"],
                                       grading.Options(isolation=PLAIN), 1)
    assert len(runs) == 1 and not result.graded_again  # --jobs 1: it ran beside no other


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root, to run the grader as a uid of its "
                    "own whose processes nothing else changes")
def test_when_the_relay_cannot_start_the_notebook_s_process_the_grader_says_it_failed():
    """Run by an ordinary user without bubblewrap, with no process left to the user (a process
    limit of 3: the grader, its thread and the worker), the worker's relay cannot start the
    notebook's process, before any notebook code ran: the grader says that it failed, and does
    not blame the notebook's code for ending the grading process."""
    with folder_of_an_ordinary_user() as (folder, become, _):
        path = folder / "01_parse_cron_field.ipynb"
        nbformat.write(fixtures.honest_submission(PARSE), path)
        results = folder / "results.json"
        done = grader_as(become, folder, 3, "grade", str(path), "--results", str(results),
                         "--jobs", "1")
        assert done.returncode == 0, done.stderr[-3000:]
        graded = json.loads(results.read_text())
        said = " ".join(test["output"] for test in graded["tests"])
        assert "ended the grading process" not in done.stdout + said, done.stdout
        assert graded["score"] == 0 and "the grader could not start one of its own processes " \
            "for this notebook even when graded alone" in said, said
