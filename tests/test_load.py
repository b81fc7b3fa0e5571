"""The same submission gets the same score on a quiet and on a saturated machine (issue 9, 8).

Time limits are CPU time of the sandbox, and each sandbox has a CPU share of its own, so
processes that compete for the CPU slow grading down without changing a verdict; the wall
clock stops only code that waits (tests/test_backstop.py grades a slow honest answer and an
endless loop in sandboxes starved of CPU). Here: a time-out is never taken for final, and the
race probes decide every race the same way on every run.
"""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from pathlib import Path

import fixtures
import nbformat
import pytest

from autograder import grading, isolation
from autograder.reference import REPOSITORY
from autograder.results import NotebookResult
from autograder.rubric import exercise_for
from autograder.sandbox.probes import _capstone
from autograder.sandbox.probes._capstone import TakeTurns

needs_bwrap = pytest.mark.skipif(not isolation.bwrap_works(),
                                 reason="bubblewrap (Debian package bubblewrap) is not available")


def _grade(path: Path) -> NotebookResult:
    return grading.grade_notebook(path, grading.Options(isolation=isolation.Isolation("bwrap")))


def test_a_time_out_is_never_reused_by_a_rerun(tmp_path):
    """A time-out may be the machine's doing: grade-batch saves it but grades it again."""
    parse = exercise_for("01_parse_cron_field")
    endless = "def parse_cron_field(field, low, high):\n    while True:\n        pass\n"
    submitted = tmp_path / "submitted"
    for student, answer in (("ann", None), ("lou", endless)):
        answers = {"answer_parse_cron_field": answer} if answer else None
        path = submitted / student / parse.assignment / f"{parse.notebook}.ipynb"
        path.parent.mkdir(parents=True)
        nbformat.write(fixtures.build_submission(parse, answers) if answers
                       else fixtures.honest_submission(parse), path)
    command = [sys.executable, "-m", "autograder", "grade-batch", str(submitted), "--out",
               str(tmp_path / "out"), "--time-limit", "2"]
    first = subprocess.run(command, cwd=REPOSITORY, capture_output=True, text=True, timeout=300)
    assert first.returncode == 0 and "graded 2 notebooks" in first.stderr, first.stderr
    again = subprocess.run(command, cwd=REPOSITORY, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    assert "graded 1 notebook, skipped 1 unchanged" in again.stderr, again.stderr
    assert "lou/" in again.stderr and "ann/" not in again.stderr.split("graded 1")[0]


CAPSTONE = exercise_for("07_safe_scheduler")
RACES = ("acquiring one new run at the same moment", "workers at the same moment",
         "two triggers at once", "three triggers at once")


@needs_bwrap
@pytest.mark.parametrize("looks", ["connection", "cursor"])
def test_a_race_comes_out_the_same_on_every_run(tmp_path, looks):
    """A check-then-insert acquire_run meets the interleaving that breaks it on every run, and
    the reference never waits for it: the race probes force who looks first (LookTogether in
    autograder/sandbox/probes/_capstone.py) instead of leaving it to timing. They watch every
    statement the connection runs, so code that looks through a cursor meets it too."""
    assert grading.prepare((CAPSTONE,)) == []
    entry = fixtures.read_corpus_entry(REPOSITORY / "tests" / "corpus" / "wrong" /
                                       CAPSTONE.notebook / "check_then_insert.py")
    if looks == "cursor":
        source = entry.answers["answer_runs_table"]
        looking = 'row = db.execute("SELECT 1 FROM runs'
        assert looking in source
        entry.answers["answer_runs_table"] = source.replace(
            looking, 'row = db.cursor().execute("SELECT 1 FROM runs')
    path = tmp_path / f"{CAPSTONE.notebook}.ipynb"
    nbformat.write(fixtures.corpus_submission(entry), path)
    runs = [_grade(path) for _ in range(3)]
    failed = [sorted(t.name for item in run.items for t in item.tests if not t.passed)
              for run in runs]
    assert failed[0] == failed[1] == failed[2], failed
    assert all(any(race in name for name in failed[0]) for race in RACES), failed[0]
    assert runs[0].score == runs[1].score == runs[2].score


def _queued(gate, count: int) -> None:
    deadline = time.monotonic() + 60
    while len(gate.queue) < count:
        assert time.monotonic() < deadline, "a racer never reached the gate"
        time.sleep(0.001)


def test_fetches_that_duplicates_make_go_one_at_a_time_in_the_order_they_came():
    """The race probes hold fetches with TakeTurns instead of the notebook's gate, which lets
    every held fetch go after 2 s at once: what duplicates then did to each other depended on
    the machine's load (a duplicate_runs_twice entry lost a case beside busy processes, about
    one run in twenty)."""
    gate = TakeTurns(3)
    lock, running, most, order = threading.Lock(), [], [0], []

    def duplicate(number: int) -> None:
        gate.wait(2.0)
        with lock:
            running.append(number)
            most[0] = max(most[0], len(running))
        time.sleep(0.05)  # its work: the others must not start meanwhile
        with lock:
            running.remove(number)
            order.append(number)
        gate.returned()

    threads = []
    for number in range(3):
        threads.append(threading.Thread(target=duplicate, args=(number,)))
        threads[-1].start()
        if number < 2:
            _queued(gate, number + 1)
    for thread in threads:
        thread.join(60)
    assert order == [0, 1, 2] and most[0] == 1


def test_the_winners_fetch_waits_until_the_other_triggers_have_returned():
    gate = TakeTurns(3)
    went = threading.Event()

    def winner() -> None:
        gate.wait(2.0)
        went.set()

    thread = threading.Thread(target=winner)
    thread.start()
    _queued(gate, 1)
    gate.returned()  # the first duplicate trigger returned
    assert not went.wait(0.2), "one of two other triggers has returned: still held"
    gate.set()  # the probe opens the gate when the others have returned
    assert went.wait(60)
    thread.join(60)


def _look_together(race: _capstone.LookTogether, first: str, seen: dict) -> None:
    race.first_statement(first)
    seen[first] = race.arrived


def test_a_racer_that_looked_waits_for_one_still_computing_its_way_there(monkeypatch):
    """LookTogether waits for every racer to have looked; a racer slowed down (by its own work
    or a busy machine) must be waited for, or the race would come out by timing."""
    monkeypatch.setattr(_capstone, "RACE_WAIT", 1.0)
    race, seen = _capstone.LookTogether(2), {}
    reader = threading.Thread(target=_look_together, args=(race, "SELECT 1", seen))
    reader.start()
    busy_until = time.monotonic() + 1.5  # past RACE_WAIT, computing all along
    while time.monotonic() < busy_until:
        pass
    race.first_statement("INSERT INTO runs VALUES (1)")
    reader.join(60)
    assert seen == {"SELECT 1": 2}, "the reader went on before the other racer had looked"


def test_a_racer_that_looked_does_not_wait_for_one_blocked_on_a_lock(monkeypatch):
    """Code that serialises its racers with a lock of its own: the second racer never looks
    while the first waits, so the first goes on once nothing computes."""
    monkeypatch.setattr(_capstone, "RACE_WAIT", 0.2)
    race, seen, lock = _capstone.LookTogether(2), {}, threading.Lock()

    def racer(first: str) -> None:
        with lock:
            _look_together(race, first, seen)

    threads = [threading.Thread(target=racer, args=(sql,)) for sql in ("SELECT 1", "SELECT 2")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert seen == {"SELECT 1": 1, "SELECT 2": 2} or seen == {"SELECT 2": 1, "SELECT 1": 2}
