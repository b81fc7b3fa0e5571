"""The same submission gets the same score in every sandbox mode (README: guarantees).

bubblewrap, the fallback without it (macOS, containers that cannot create namespaces) and
`--sandbox off` differ in how well they isolate student code, never in how they grade it:
notebook code sees the same standard library and course packages in each. The fallback is
made here by hiding `bwrap` from the grader's PATH, as on a machine that does not have it.
In none of them does a notebook reach a socket of the machine (bubblewrap's namespaces, or the
fallback's seccomp filter).
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import fixtures
import nbformat
import pytest
from grader_cli import GRADER, Grades, environment_with, grade_batch

from autograder import grading, isolation, seccomp
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


def as_an_ordinary_user(folder: Path) -> tuple[list[str], int]:
    """How to run the grader as an ordinary user, and that user's uid: as this one, or, as root,
    with setpriv as a uid of its own that nothing else runs as (so that only the batch counts
    against its process limit), when that uid can run this Python (the test skips otherwise)."""
    if os.geteuid() != 0:
        return [], os.getuid()
    uid = 64_999
    setpriv = shutil.which("setpriv")
    become = [setpriv or "setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups"]
    # It starts this Python again as the grader starts its workers (setpriv itself runs it
    # even where that uid could not).
    if setpriv is None or subprocess.run(
            [*become, sys.executable, "-c", STARTS_ITSELF], capture_output=True,
            cwd=folder).returncode != 0:
        pytest.skip(f"uid {uid} cannot reach this Python's folders (they lie where only root "
                    "can look), so it cannot run the grader")
    return become, uid


def test_a_notebook_graded_by_an_ordinary_user_leaves_the_user_half_of_the_processes(tmp_path):
    """Without bubblewrap, run by an ordinary user, a notebook runs as the user's uid, under the
    user's process limit (lowered here): it stops at half of what the user had left (at most
    the process limit of 64 here, with --jobs 1), so the grader and the user's other programs
    can still start theirs."""
    folder = Path(tempfile.mkdtemp())
    try:
        folder.chmod(0o777)
        become, uid = as_an_ordinary_user(folder)
        limit = tasks_of(uid) + SPARE_PROCESSES
        path = folder / "01_parse_cron_field.ipynb"
        code = fixtures.starts_processes(SPARE_PROCESSES, SPARE_PROCESSES // 2)
        nbformat.write(fixtures.build_submission(PARSE, {"answer_parse_cron_field": ANSWER},
                                                 [("answer_parse_cron_field", code)]), path)
        results = folder / "results.json"
        done = subprocess.run(
            [*become, *GRADER, "grade", str(path), "--results", str(results), "--jobs", "1"],
            cwd=REPOSITORY, capture_output=True, text=True, timeout=300,
            env=environment_with(folder),
            preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_NPROC, (limit, limit)))
        assert done.returncode == 0, done.stderr[-3000:]
        graded = json.loads(results.read_text())
        assert graded["score"] == PARSE.max_score, graded["tests"][0]["output"]
    finally:
        shutil.rmtree(folder, ignore_errors=True)
