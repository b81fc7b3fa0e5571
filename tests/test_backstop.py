"""The wall clock stops code that waits, never code that computes slowly (docs/grader.md, Limits).

Limits are CPU time; the wall-clock backstop is for code that sleeps or blocks. On a machine
so busy that a sandbox gets a small share of a core, computing code passes its backstop too: it
must then get more time, so that its verdict (a result, or the CPU-time limit) is the one a
quiet machine gives. sandbox/backstop.py holds the rule; these tests hold it with a fake clock,
in one process, and for a whole sandbox starved by its own control group.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import fixtures
import nbformat
import pytest

from autograder import cgroups, grading, isolation, processes
from autograder.results import NotebookResult
from autograder.rubric import exercise_for
from autograder.sandbox import backstop, harness
from autograder.sandbox.backstop import Backstop

PARSE = exercise_for("01_parse_cron_field")


class FakeStep:
    """A clock and a CPU counter that the test moves by hand."""

    def __init__(self) -> None:
        self.now, self.cpu, self.queued = 100.0, 5.0, 2.0

    def run(self, seconds: float, share: float, queued: float = 0.0) -> None:
        """`seconds` of wall clock, of which the step computed `share` and spent `queued`
        ready to run, waiting for a core that other processes held."""
        self.now += seconds
        self.cpu += seconds * share
        self.queued += seconds * queued


def test_a_waiting_step_is_stopped_at_its_first_deadline():
    step = FakeStep()
    watch = Backstop(10.0, lambda: step.cpu, clock=lambda: step.now)
    step.run(9.9, 0.0)
    assert not watch.passed(), "before the deadline nothing is stopped"
    step.run(0.1, 0.0)
    assert watch.passed()


def test_a_step_that_keeps_computing_gets_more_time_up_to_the_ceiling():
    step = FakeStep()
    watch = Backstop(10.0, lambda: step.cpu, clock=lambda: step.now)
    share = backstop.COMPUTING_SHARE * 1.2  # a loop on a machine with many busy cores
    extended = 0
    while not watch.passed():
        assert watch.left() > 0
        step.run(watch.left(), share)
        extended += 1
        assert extended < 100
    assert step.now - 100.0 == pytest.approx(10.0 * backstop.CEILING)
    assert extended > 2, "it was looked at several times, half a backstop apart"


def test_a_step_that_stops_computing_is_stopped_at_the_next_look():
    step = FakeStep()
    watch = Backstop(10.0, lambda: step.cpu, clock=lambda: step.now)
    step.run(10.0, 0.5)
    assert not watch.passed(), "it computed: a later deadline"
    assert watch.left() == pytest.approx(5.0)
    step.run(5.0, backstop.COMPUTING_SHARE * 0.5)  # now it waits on a lock
    assert watch.passed()


def test_a_step_starved_of_a_core_by_other_processes_gets_more_time_up_to_the_ceiling():
    """On a machine where more than twenty processes want each core (a classmate's sandbox
    that starts its 64 processes, each in a scheduling group of its own), a step that computes
    all the time it gets has less than COMPUTING_SHARE of a core; it spends the rest of its
    time ready to run, waiting for one. It is computing, and gets more time like a loop."""
    step = FakeStep()
    watch = Backstop(10.0, lambda: step.cpu, clock=lambda: step.now,
                     queued=lambda: step.queued)
    share = backstop.COMPUTING_SHARE * 0.6  # 61 processes that compute, on 2 cores
    extended = 0
    while not watch.passed():
        step.run(watch.left(), share, queued=1.0 - share)
        extended += 1
        assert extended < 100
    assert step.now - 100.0 == pytest.approx(10.0 * backstop.CEILING), "the ceiling holds"
    assert extended > 2


def test_a_step_that_sleeps_beside_a_starved_one_is_still_stopped_at_its_first_deadline():
    """Waiting for a core counts only while a step is ready to run: one that sleeps, blocks on
    a lock or reads a silent pipe is not, so a busy machine gives it no more time."""
    step = FakeStep()
    watch = Backstop(10.0, lambda: step.cpu, clock=lambda: step.now,
                     queued=lambda: step.queued)
    step.run(10.0, backstop.COMPUTING_SHARE * 0.5, queued=backstop.COMPUTING_SHARE * 0.4)
    assert watch.passed()


def test_a_step_whose_threads_end_and_take_their_wait_with_them_is_judged_by_its_cpu():
    """The time a thread or process waited for a core is read from the threads that exist at
    each look: one that ended since the last look takes its wait with it. A step that computed
    at least COMPUTING_SHARE of a core meanwhile, one thread after another, is computing
    whatever that wait was, as if it had never been counted."""
    step = FakeStep()
    watch = Backstop(10.0, lambda: step.cpu, clock=lambda: step.now,
                     queued=lambda: step.queued)
    step.run(10.0, backstop.COMPUTING_SHARE * 2, queued=0.9)  # its first thread, starved
    assert not watch.passed()
    step.run(watch.left(), backstop.COMPUTING_SHARE * 2)  # the next, on a core of its own
    step.queued -= 9.0  # the first thread ended: its 9 s of waiting are no longer read
    assert not watch.passed(), "it computed: a later deadline"


def test_a_step_whose_cpu_cannot_be_read_is_stopped_at_its_first_deadline():
    step = FakeStep()
    watch = Backstop(10.0, lambda: None, clock=lambda: step.now)
    step.run(10.0, 1.0)
    assert watch.passed()


def test_a_fresh_step_is_not_looked_at_before_its_deadline_and_counts_from_zero():
    """The grader's watch on a sandbox that has just started: no look at its CPU (a scan of
    /proc) until the deadline, and the CPU counted from the start decides as before."""
    step = FakeStep()
    step.cpu = 0.0
    looks = []

    def cpu() -> float:
        looks.append(step.now)
        return step.cpu

    watch = Backstop(10.0, cpu, clock=lambda: step.now, fresh=True)
    step.run(9.9, 0.5)
    assert not watch.passed() and looks == []
    step.run(0.1, 0.5)
    assert not watch.passed(), "it computed from its start: a later deadline"
    step.run(watch.left(), backstop.COMPUTING_SHARE * 0.5)
    assert watch.passed()
    assert len(looks) == 2


def test_process_cpu_and_tree_cpu_count_a_busy_child():
    child = subprocess.Popen([sys.executable, "-c",
                              "import time\nend = time.process_time() + 0.5\n"
                              "while time.process_time() < end: pass\ntime.sleep(60)"])
    try:
        deadline = time.monotonic() + 60
        while (backstop.process_cpu(child.pid) or 0.0) < 0.4 and time.monotonic() < deadline:
            time.sleep(0.05)
        own = backstop.process_cpu(child.pid)
        assert own is not None and own >= 0.4
        tree = processes.tree_cpu(os.getpid())
        assert tree is not None and tree >= own, "the test process's tree holds the child"
    finally:
        child.kill()
        child.wait()
    assert backstop.process_cpu(child.pid) is None, "a process that is gone"
    assert processes.tree_cpu(child.pid) is None


def test_in_one_process_a_sleep_is_stopped_and_a_slow_loop_is_not(monkeypatch):
    monkeypatch.setattr(harness, "WALL_FACTOR", 0.0)
    monkeypatch.setattr(harness, "WALL_SLACK", 0.3)  # the backstop: 0.3 s of wall clock
    started = time.monotonic()
    with pytest.raises(harness.StepTimeout):
        with harness.time_limit(5.0):
            time.sleep(30)
    assert time.monotonic() - started < 20

    # Notebook code that makes the clock of CPU time race cannot make a sleep look busy: the
    # harness bound time.process_time before any notebook code ran.
    monkeypatch.setattr(time, "process_time", lambda: time.monotonic() * 100)
    started = time.monotonic()
    with pytest.raises(harness.StepTimeout):
        with harness.time_limit(5.0):
            time.sleep(30)
    assert time.monotonic() - started < 20
    monkeypatch.undo()
    monkeypatch.setattr(harness, "WALL_FACTOR", 0.0)
    monkeypatch.setattr(harness, "WALL_SLACK", 0.3)

    monkeypatch.setattr(backstop, "CEILING", 1000.0)
    with harness.time_limit(5.0):  # 1 s of CPU: past the backstop on any machine
        end = time.process_time() + 1.0
        while time.process_time() < end:
            pass


def _cpu_quota_works() -> bool:
    group = cgroups.Cgroup(2**30, 64, cpus=0.5)
    try:
        return any(folder.parent.name == "cpu" or (folder / "cpu.max").is_file()
                   for folder in group.folders)
    finally:
        group.remove()


SLOW_FIRST_CALL = """
import time as _time
_first_call = [True]
_honest = parse_cron_field


def parse_cron_field(field, low, high):
    if _first_call.pop() if _first_call else False:  # slow once: 1.5 s of its 5 s of CPU
        end = _time.process_time() + 1.5
        while _time.process_time() < end:
            pass
    return _honest(field, low, high)
"""
# Of a core, below COMPUTING_SHARE: a sandbox on a machine where more than thirty processes
# want each core (a classmate's that starts its 64, each in a scheduling group of its own).
STARVED = 0.03


def test_queued_seconds_counts_the_time_a_process_waits_for_a_core():
    """A loop held by its control group to 2% of a core spends most of its time ready to run
    (the kernel counts the time its quota keeps it off as run-queue delay); a sleep none."""
    group = cgroups.Cgroup(2**30, 64, cpus=0.02)
    if not any(folder.parent.name == "cpu" or (folder / "cpu.max").is_file()
               for folder in group.folders):
        group.remove()
        pytest.skip("needs root and a cgroup cpu controller to starve one process")
    loop = subprocess.Popen(group.wrap([sys.executable, "-c", "while True: pass"]))
    sleep = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        time.sleep(0.5)
        before, asleep = backstop.queued_seconds(loop.pid), backstop.queued_seconds(sleep.pid)
        started = time.monotonic()
        time.sleep(2.0)
        waited = backstop.queued_seconds(loop.pid) - before
        assert waited >= 0.25 * (time.monotonic() - started), waited
        assert backstop.queued_seconds(sleep.pid) - asleep < 0.1
        assert backstop.tree_queued(os.getpid()) >= backstop.queued_seconds(loop.pid)
    finally:
        for child in (loop, sleep):
            child.kill()
            child.wait()
        group.remove()
    assert backstop.queued_seconds(loop.pid) == 0.0, "a process that is gone"


@pytest.fixture(scope="module")
def starved(tmp_path_factory) -> dict[str, NotebookResult]:
    """Notebooks graded in sandboxes capped at 7-10% of a core, all at once (starved
    sandboxes leave the CPU idle): an endless loop and a slow honest answer, with bubblewrap
    and without."""
    if not _cpu_quota_works():
        pytest.skip("needs root and a cgroup cpu controller to starve one sandbox")
    folder = tmp_path_factory.mktemp("starved")
    modes = ["bwrap", "none"] if isolation.bwrap_works() else ["none"]
    assert grading.prepare((PARSE,)) == []
    answer = fixtures.reference_answers(PARSE)["answer_parse_cron_field"]
    made = {"loop": fixtures.submission_for(PARSE, "hostile/loop_in_function"),
            "slow": fixtures.build_submission(PARSE, {"answer_parse_cron_field":
                                                      answer + "\n" + SLOW_FIRST_CALL})}
    jobs = {}
    for kind, notebook in made.items():
        (folder / kind).mkdir()
        path = folder / kind / f"{PARSE.notebook}.ipynb"
        nbformat.write(notebook, path)
        for mode in modes:
            limits = {"time_limit": 2.0, "cpus": 0.07} if kind == "loop" else {"cpus": STARVED}
            jobs[f"{kind}-{mode}"] = (path, grading.Options(isolation=isolation.Isolation(mode),
                                                            **limits))

    def grade(name: str) -> tuple[str, NotebookResult]:
        path, options = jobs[name]
        return name, grading.grade_notebook(path, options)

    with ThreadPoolExecutor(len(jobs)) as pool:
        return dict(pool.map(grade, jobs))


def test_an_endless_loop_starved_of_cpu_reaches_its_cpu_limit_not_the_wall_clock(starved):
    """Capped at 7% of a core, the loop's 2 s of CPU take about 29 s of wall clock, past the
    notebook's backstop (24 s) and the hidden test's (18 s): the report must still say the
    CPU-time limit stopped it."""
    loops = {name: result for name, result in starved.items() if name.startswith("loop")}
    assert loops
    for name, result in loops.items():
        assert result.score == 0, name
        assert any("CPU time limit of 2 s" in problem for problem in result.problems), \
            (name, result.problems)
        assert not any("of waiting" in problem for problem in result.problems), \
            (name, result.problems)


def test_a_slow_honest_answer_starved_of_cpu_earns_every_point(starved):
    """One hidden test takes 1.5 s of its 5 s of CPU: about 50 s of wall clock at 3% of a
    core, past that test's backstop (30 s). It computes all the time it gets and waits for a
    core the rest, so it is not stopped, and the notebook earns what it earns on a quiet
    machine: every point. (Counting only the CPU it got, 3% of a core looked like waiting,
    and the test was stopped at its backstop.)"""
    slow = {name: result for name, result in starved.items() if name.startswith("slow")}
    assert slow
    for name, result in slow.items():
        assert (result.score, result.timed_out, result.problems) == (PARSE.max_score, False, []), \
            (name, [t.output for item in result.items for t in item.tests if not t.passed])
