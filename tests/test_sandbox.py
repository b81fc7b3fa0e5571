"""What student code can and cannot do while `python -m autograder` grades it (docs/sandbox.md).

Each test grades a small submission of notebook 01 whose code tries one thing and prints
what happened; the sandbox must stop it without costing the grader a result.
"""

from __future__ import annotations

import csv
import io
import json
import os
import random
import re
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING

import fixtures
import nbformat
import pytest

from autograder import (
    batch,
    cgroups,
    discovery,
    grading,
    isolation,
    processes,
    runner,
    scoring,
    seccomp,
)
from autograder.results import NotebookResult
from autograder.sandbox import backstop, landlock

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
from autograder.rubric import exercise_for

REPOSITORY = Path(__file__).resolve().parent.parent
PARSE = exercise_for("01_parse_cron_field")
ANSWER = fixtures.reference_answers(PARSE)["answer_parse_cron_field"]
ISOLATED = isolation.Isolation("bwrap")

needs_bwrap = pytest.mark.skipif(not isolation.bwrap_works(),
                                 reason="bubblewrap (Debian package bubblewrap) is not available")


@pytest.fixture(scope="module", autouse=True)
def prepared():
    assert grading.prepare((PARSE,)) == []


def grade(tmp_path: Path, code: str, answer: str = ANSWER, sandbox: isolation.Isolation = ISOLATED,
          **limits) -> NotebookResult:
    """Grade the honest answer followed by a cell of the student's own holding `code`."""
    notebook = fixtures.build_submission(PARSE, {"answer_parse_cron_field": answer},
                                         [("answer_parse_cron_field", code)])
    path = tmp_path / "01_parse_cron_field.ipynb"
    nbformat.write(notebook, path)
    return grading.grade_notebook(path, grading.Options(isolation=sandbox, **limits))


def attempts(paths: list[str]) -> str:
    """Student code that tries to list and read each path and prints what it got."""
    return f"""
import os
import signal
for path in {paths!r}:
    try:
        if os.path.isdir(path):
            print("LISTED", path, os.listdir(path))
        else:
            with open(path, "rb") as stream:
                print("READ", path, len(stream.read()))
    except OSError as error:
        print("BLOCKED", path, type(error).__name__)
"""


@needs_bwrap
def test_honest_work_earns_every_point_in_the_sandbox(tmp_path):
    result = grade(tmp_path, "print('uid', __import__('os').getuid())")
    assert result.score == PARSE.max_score and result.problems == []
    uid = int(result.stdout.split("uid", 1)[1].split()[0])
    if os.geteuid() == 0:
        assert uid in runner.SANDBOX_UIDS  # student code never runs as root, nor as a real user
    else:  # an unprivileged grader's own uid, in bubblewrap's user namespace
        assert uid == os.getuid()


@needs_bwrap
def test_solutions_grader_and_other_submissions_cannot_be_read(tmp_path):
    neighbour = tmp_path / "neighbour" / "01_parse_cron_field.ipynb"
    neighbour.parent.mkdir()
    neighbour.write_text("{}")
    neighbour.chmod(0o644)
    secret = [str(REPOSITORY / "solutions"), str(REPOSITORY / "solutions" / PARSE.path),
              str(REPOSITORY / "autograder"),
              str(REPOSITORY / "autograder" / "suites" / "parse_cron_field.py"),
              str(REPOSITORY), str(neighbour), str(neighbour.parent)]
    copier = f"""
def parse_cron_field(field, low, high):
    import json
    notebook = json.load(open({str(REPOSITORY / "solutions" / PARSE.path)!r}))
    names = {{}}
    for cell in notebook["cells"]:
        if cell["metadata"].get("nbgrader", {{}}).get("grade_id") == "answer_parse_cron_field":
            exec("".join(cell["source"]), names)
    return names["parse_cron_field"](field, low, high)
"""
    result = grade(tmp_path, attempts(secret), answer=copier)
    assert result.score == 0  # copying the reference from disk gets nothing
    assert "READ" not in result.stdout and "LISTED" not in result.stdout
    assert result.stdout.count("BLOCKED") == len(secret)
    # what the sandbox does offer: its own probes, read-only, and the course data
    allowed = grade(tmp_path, attempts(["/grader/sandbox", "/course/data"]))
    assert allowed.stdout.count("LISTED") == 2


@needs_bwrap
def test_there_is_no_network(tmp_path):
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.2)
    port = listener.getsockname()[1]
    code = f"""
import socket
for host, port in (("127.0.0.1", {port}), ("1.1.1.1", 53), ("pypi.org", 443)):
    try:
        socket.create_connection((host, port), timeout=2).sendall(b"stolen")
        print("CONNECTED", host)
    except OSError as error:
        print("NO NETWORK", host, type(error).__name__)
"""
    try:
        result = grade(tmp_path, code)
        with pytest.raises(socket.timeout):
            listener.accept()
    finally:
        listener.close()
    assert "CONNECTED" not in result.stdout and result.stdout.count("NO NETWORK") == 3
    assert result.score == PARSE.max_score


@needs_bwrap
def test_writes_stay_in_the_scratch_folder(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    outside.chmod(0o777)
    marker = f"autograder-test-{os.getpid()}"
    targets = [str(outside / "escaped.txt"), f"/tmp/{marker}", "/course/data/x.txt",
               "/grader/sandbox/plain.py", "scratch.txt"]
    code = f"""
for target in {targets!r}:
    try:
        with open(target, "w") as stream:
            stream.write("x")
        print("WROTE", target)
    except OSError as error:
        print("REFUSED", target, type(error).__name__)
"""
    result = grade(tmp_path, code)
    assert "REFUSED " + targets[0] in result.stdout  # the host folder is not there at all
    assert "REFUSED /course/data/x.txt" in result.stdout
    assert "REFUSED /grader/sandbox/plain.py" in result.stdout
    assert "WROTE scratch.txt" in result.stdout  # the working folder is the scratch folder
    assert not (outside / "escaped.txt").exists() and not Path(f"/tmp/{marker}").exists()
    assert not (REPOSITORY / "data" / "x.txt").exists()


def processes_with(marker: str) -> list[str]:
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and marker in (entry / "cmdline").read_bytes().decode():
                found.append(entry.name)
        except OSError:
            pass
    return found


# Each detaches as far as the sandbox lets it: a session of its own is refused (setsid), so a
# process group of its own.
ORPHANS = """
import os, subprocess
subprocess.Popen(["sleep", "{marker}"], process_group=0)
if os.fork() == 0:
    os.setpgid(0, 0)
    if os.fork() == 0:
        os.execvp("sleep", ["sleep", "{marker}"])
    os._exit(0)
print("started")
"""


@needs_bwrap
def test_no_process_outlives_the_grading(tmp_path):
    marker = f"{4000 + os.getpid() % 1000}.{time.time_ns() % 10**6}"
    result = grade(tmp_path, ORPHANS.format(marker=marker))
    assert "started" in result.stdout and result.score == PARSE.max_score
    time.sleep(0.2)
    assert processes_with(marker) == []


def test_without_bubblewrap_processes_are_still_ended(tmp_path):
    """--sandbox=off (and the fallback without bwrap) ends escaped processes too."""
    marker = f"{5000 + os.getpid() % 1000}.{time.time_ns() % 10**6}"
    extra = [("answer_parse_cron_field", ORPHANS.format(marker=marker))]
    notebook = fixtures.build_submission(PARSE, {"answer_parse_cron_field": ANSWER}, extra)
    nbformat.write(notebook, tmp_path / "01_parse_cron_field.ipynb")
    done = subprocess.run([sys.executable, "-m", "autograder", "grade", "--sandbox=off",
                           tmp_path / "01_parse_cron_field.ipynb", "--results",
                           tmp_path / "r.json"], cwd=REPOSITORY, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0 and "without bubblewrap" in done.stderr
    assert "25 / 25 points" in done.stdout
    time.sleep(0.2)
    assert processes_with(marker) == []


@needs_bwrap
def test_memory_is_limited(tmp_path):
    code = """
try:
    hog = bytearray(2 * 2**30)
    print("ALLOCATED")
except MemoryError:
    print("memory limit")
"""
    result = grade(tmp_path, code, memory_limit_mb=256)
    assert "memory limit" in result.stdout and result.score == PARSE.max_score


@needs_bwrap
def test_output_is_captured_and_truncated(tmp_path):
    result = grade(tmp_path, "import sys\nfor _ in range(400):\n    print('x' * 5000)\n"
                             "sys.stderr.write('y' * 200000)")
    assert len(result.stdout) <= runner.OUTPUT_CAP and len(result.stderr) <= runner.OUTPUT_CAP
    assert any("only the first 64 KiB were kept" in p for p in result.problems)
    assert result.score == PARSE.max_score


WAITER = """
import os, signal, time

def answer(x):
    if x == "exit":
        os._exit(3)
    if x == "wait":  # out of reach of the in-process timers: only the watcher can end it
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM, signal.SIGPROF})
        time.sleep(3600)
    return x
"""


@pytest.mark.parametrize("mode", ["bwrap", "none"])
def test_the_case_that_ended_its_process_is_found_among_thousands_read_in_arrears(mode):
    """The notebook process reads a case server's progress only now and then, not at every
    case: among 10,000 quick cases (more progress than a pipe holds), the one that ends the
    server and the one that waits with its timers blocked (stopped by the wall-clock backstop)
    are still the ones that fail, and every other case gets its own answer."""
    if mode == "bwrap" and not isolation.bwrap_works():
        pytest.skip("bubblewrap (Debian package bubblewrap) is not available")
    arguments = [str(index) for index in range(10000)]
    arguments[1000], arguments[9000] = "exit", "wait"
    job = {"prelude": [], "cells": [{"label": "cell", "source": WAITER}], "cell_timeout": 10.0,
           "cpu_budget": 60.0,
           "cases": [{"id": f"c{index}", "probe": "call", "target": "answer", "args": [argument],
                      "kwargs": {}, "timeout": 0.2} for index, argument in enumerate(arguments)]}
    run = runner.run(job, runner.Limits(), isolation.Isolation(mode))
    assert run.finished, run.stderr[-2000:]
    outcomes = {event["id"]: event["outcome"] for event in run.events
                if event.get("event") == "case"}
    assert len(outcomes) == 10000
    assert "exit status 3" in outcomes.pop("c1000").get("died", "")
    assert outcomes.pop("c9000") == {"timeout": 0.2}
    assert all(outcomes[f"c{index}"] == {"value": str(index)} for index in range(10000)
               if f"c{index}" in outcomes)


def _one_cell_one_case(mode: str, source: str, target: str) -> runner.RunResult:
    """A sandbox run of one cell and one hidden test calling `target(0)`."""
    if mode == "bwrap" and not isolation.bwrap_works():
        pytest.skip("bubblewrap (Debian package bubblewrap) is not available")
    job = {"prelude": [], "cells": [{"label": "cell", "source": source}], "cell_timeout": 10.0,
           "cpu_budget": 10.0,
           "cases": [{"id": "c", "probe": "call", "target": target, "args": [0], "kwargs": {},
                      "timeout": 5.0}]}
    run = runner.run(job, runner.Limits(), isolation.Isolation(mode))
    assert run.finished, run.stderr[-2000:]
    return run


REWRITE_CASES = """
import gc, time


def rewrite(timeout=30.0, args=(99,)):
    \"\"\"Raise the time limit and change the arguments of every hidden case in reach (the
    collector is refused while grading: then nothing is in reach).\"\"\"
    gc.unfreeze()
    try:
        found = gc.get_objects()
    except RuntimeError:
        found = []
    for thing in found:
        if type(thing) is dict and "timeout" in thing and "probe" in thing:
            thing["timeout"] = timeout
            thing["args"] = list(args)


rewrite()  # in a cell: the job as the notebook process holds it


def slow(_):
    rewrite()  # inside a hidden test: the cases its process has read or will read
    until = time.process_time() + 0.6
    while time.process_time() < until:
        pass
    return "done"


def echo(value):
    return value
"""


@pytest.mark.parametrize("mode", ["bwrap", "none"])
def test_no_notebook_code_can_change_a_hidden_case(mode):
    """The job's cases are reachable from notebook code (through the collector): a cell, or
    the code under test, that raises their time limits or changes their arguments changes
    nothing; each case runs as the grader sent it."""
    if mode == "bwrap" and not isolation.bwrap_works():
        pytest.skip("bubblewrap (Debian package bubblewrap) is not available")
    job = {"prelude": [], "cells": [{"label": "cell", "source": REWRITE_CASES}],
           "cell_timeout": 10.0, "cpu_budget": 20.0,
           "cases": [{"id": f"slow{index}", "probe": "call", "target": "slow", "args": [index],
                      "kwargs": {}, "timeout": 0.3} for index in range(2)]
           + [{"id": "echo", "probe": "call", "target": "echo", "args": [7], "kwargs": {},
               "timeout": 5.0}]}
    run = runner.run(job, runner.Limits(), isolation.Isolation(mode))
    assert run.finished, run.stderr[-2000:]
    outcomes = {event["id"]: event["outcome"] for event in run.events
                if event.get("event") == "case"}
    assert outcomes == {"slow0": {"timeout": 0.3}, "slow1": {"timeout": 0.3},
                        "echo": {"value": 7}}, outcomes


UNLIMITED = """
import resource, signal, time


def unlimited(_):
    \"\"\"Turn off this test's CPU timer and raise its CPU limit, then compute past it.\"\"\"
    signal.setitimer(signal.ITIMER_PROF, 0)
    signal.setitimer(signal.ITIMER_REAL, 0)
    hard = resource.getrlimit(resource.RLIMIT_CPU)[1]
    resource.setrlimit(resource.RLIMIT_CPU, (hard, hard))
    started = time.process_time()
    while time.process_time() - started < 4.0:
        pass
    return "done"


def size(values):
    return len(values)
"""


@pytest.mark.parametrize("mode", ["bwrap", "none"])
def test_a_test_that_turns_off_its_own_cpu_limits_is_still_stopped_at_them(mode):
    """The code under test can turn off its own timer and raise its process's CPU limit; the
    notebook's process, which it cannot reach, stops it a little after its limit all the
    same (a slow answer must not finish in time by turning the clock off)."""
    if mode == "bwrap" and not isolation.bwrap_works():
        pytest.skip("bubblewrap (Debian package bubblewrap) is not available")
    job = {"prelude": [], "cells": [{"label": "cell", "source": UNLIMITED}],
           "cell_timeout": 10.0, "cpu_budget": 30.0,
           "cases": [{"id": "unlimited", "probe": "call", "target": "unlimited", "args": [0],
                      "kwargs": {}, "timeout": 0.3},
                     {"id": "after", "probe": "call", "target": "size", "args": [[7]],
                      "kwargs": {}, "timeout": 5.0}]}
    run = runner.run(job, runner.Limits(), isolation.Isolation(mode))
    assert run.finished, run.stderr[-2000:]
    outcomes = {event["id"]: event["outcome"] for event in run.events
                if event.get("event") == "case"}
    assert outcomes == {"unlimited": {"timeout": 0.3}, "after": {"value": 1}}, outcomes


FORGED_PROGRESS = """
import os


def forge(index):
    \"\"\"Write a progress line for a later test on every descriptor, then answer.\"\"\"
    for fd in range(3, 64):
        try:
            os.write(fd, f"\\n{index + 1} 0.0\\n".encode())
        except OSError:
            pass
    return index
"""


@pytest.mark.parametrize("mode", ["bwrap", "none"])
def test_a_forged_progress_line_fails_every_test_of_the_notebook(mode):
    """A progress line out of the case server's own order can only come from the code under
    test (to start a later test's CPU time early): no test of that notebook can be trusted."""
    if mode == "bwrap" and not isolation.bwrap_works():
        pytest.skip("bubblewrap (Debian package bubblewrap) is not available")
    job = {"prelude": [], "cells": [{"label": "cell", "source": FORGED_PROGRESS}],
           "cell_timeout": 10.0, "cpu_budget": 30.0,
           "cases": [{"id": f"case{index}", "probe": "call", "target": "forge",
                      "args": [index], "kwargs": {}, "timeout": 5.0} for index in range(3)]}
    run = runner.run(job, runner.Limits(), isolation.Isolation(mode))
    assert run.finished, run.stderr[-2000:]
    outcomes: dict = {}
    for event in run.events:
        if event.get("event") == "case":
            outcomes[event["id"]] = event["outcome"]  # a later "tampered" one counts
    assert set(outcomes) == {"case0", "case1", "case2"}, outcomes
    assert all("tampered" in outcome for outcome in outcomes.values()), outcomes
    flags = [event["text"] for event in run.events if event.get("event") == "flag"]
    assert any("progress channel" in flag for flag in flags), flags


CLOSURE = """
import os
os.fsdecode.__closure__[0].cell_contents = "latin-1"  # what every path the tests decode uses


def closure(_):
    return [cell.cell_contents for cell in os.fsdecode.__closure__]
"""


@pytest.mark.parametrize("mode", ["bwrap", "none"])
def test_a_closure_of_a_module_function_rebound_by_a_cell_is_put_back_and_flagged(mode):
    """os.fsdecode keeps its encoding in a closure cell (shared with os.fsencode): a cell that
    rebinds it is reported and the hidden tests run with the cell as it was."""
    run = _one_cell_one_case(mode, CLOSURE, "closure")
    assert [event["outcome"] for event in run.events if event.get("event") == "case"] == [
        {"value": [cell.cell_contents for cell in os.fsdecode.__closure__]}]
    flags = [event["text"] for event in run.events if event.get("event") == "flag"]
    assert any("_fscodec.<locals>" in flag and "(closure)" in flag for flag in flags), flags


def _written_to_every_descriptor(payload: bytes) -> str:
    """A cell that writes `payload` to every file descriptor it may hold (the grader's channel
    is among them), and then defines `honest`."""
    return (f"import os\nfor fd in range(3, 40):\n    try:\n        os.write(fd, {payload!r})\n"
            f"    except OSError:\n        pass\n\n\ndef honest(x):\n    return x + 1\n")


GARBAGE = _written_to_every_descriptor(
    b"\n" * 100000 + b"[1]\n{bad\n not json\n"
    b'{"case": [], "outcome": {}}\n{"ended": {}, "status": 0, "cpu": 0}\n')


@pytest.mark.parametrize("mode", ["bwrap", "none"])
def test_lines_that_are_no_record_are_flagged_and_the_tests_still_count(mode):
    """Empty lines are passed over; a list, broken JSON and text written to the grader's
    channel are each an unreadable record, and records naming a test by a list or an object
    name no test: each kind is flagged once, and the hidden test after them keeps its own
    answer (the relay used to end at the broken JSON and at the unhashable names, losing every
    outcome)."""
    run = _one_cell_one_case(mode, GARBAGE, "honest")
    assert [event["outcome"] for event in run.events if event.get("event") == "case"] == [
        {"value": 1}]
    flags = [event["text"] for event in run.events if event.get("event") == "flag"]
    assert sorted(flags) == [
        "a report for a hidden test that does not exist reached the grader",
        "an outcome for a hidden test that does not exist reached the grader",
        "an unreadable record reached the grader's channel"], flags


PARTIAL = """
import os


def honest(x):
    for fd in range(3, 40):  # the grader's channel is among them
        try:
            os.write(fd, b'{"case": "c", "outcome": {"val')  # no line end
        except OSError:
            pass
    return x + 1
"""


@pytest.mark.parametrize("mode", ["bwrap", "none"])
def test_a_partial_line_left_on_the_channel_does_not_swallow_the_next_record(mode):
    """A function that writes part of a line to the grader's channel just before the hidden
    test sends its answer: that part is flagged as unreadable, and the answer still counts
    (it used to be glued to the part and lost, with no flag naming why)."""
    run = _one_cell_one_case(mode, PARTIAL, "honest")
    assert [event["outcome"] for event in run.events if event.get("event") == "case"] == [
        {"value": 1}]
    flags = [event["text"] for event in run.events if event.get("event") == "flag"]
    assert flags == ["an unreadable record reached the grader's channel"], flags


OVERLONG = """
import os
for fd in range(3, 40):  # the grader's channel is among them
    try:
        os.write(fd, b'{"flag": "' + b"x" * (2 * 1024 * 1024) + b'"}\\n')
    except OSError:
        pass


def honest(x):
    return x + 1
"""

FLOOD = """
import os


def honest(x):
    for fd in range(3, 40):  # the grader's channel is among them
        try:
            for _ in range(80):
                os.write(fd, b"{" * (1024 * 1024))
        except OSError:
            pass
    return x + 1
"""


@pytest.mark.parametrize("mode", ["bwrap", "none"])
def test_an_overlong_record_is_flagged_and_the_tests_still_count(mode):
    """A record longer than the relay reads is flagged once (what arrives of it after the cut is
    dropped unread), and the hidden test keeps its answer."""
    run = _one_cell_one_case(mode, OVERLONG, "honest")
    assert [event["outcome"] for event in run.events if event.get("event") == "case"] == [
        {"value": 1}]
    flags = [event["text"] for event in run.events if event.get("event") == "flag"]
    assert flags == ["an overlong record reached the grader's channel"], flags


@pytest.mark.parametrize("mode", ["bwrap", "none"])
def test_a_flood_on_the_channel_is_flagged_and_ends_the_reading(mode):
    """More than the relay reads in all (80 MiB from the code under test): the relay says so
    and stops reading; the notebook still finishes, and the flag reaches the grader."""
    run = _one_cell_one_case(mode, FLOOD, "honest")
    flags = [event["text"] for event in run.events if event.get("event") == "flag"]
    assert "the notebook's processes sent more than the grader reads" in flags, flags
    assert [event for event in run.events if event.get("event") == "case"] == []


PRINTS_WITHOUT_END = """
import os


def honest(x):
    return x + 1


BLOCK = b"Score: 25/25\\n" * 80_000
while True:  # until the cell's CPU time limit stops it
    os.write(1, BLOCK)
    os.write(2, BLOCK)
"""


@pytest.mark.parametrize("mode", ["bwrap", "none"])
def test_output_past_the_cap_is_counted_without_being_copied_into_the_grader(mode, monkeypatch):
    """A cell that prints without end (gigabytes a second) made the grader copy every byte
    into its own process to count it, at about twice the CPU time the notebook itself was
    allowed: past the cap the kernel now moves the rest to /dev/null, and the grader still
    counts it and grades the tests."""
    if mode == "bwrap" and not isolation.bwrap_works():
        pytest.skip("bubblewrap (Debian package bubblewrap) is not available")
    copied = [0]
    read = os.read

    def counting(fd: int, size: int) -> bytes:
        data = read(fd, size)
        copied[0] += len(data)
        return data

    monkeypatch.setattr(runner.os, "read", counting)
    job = {"prelude": [], "cells": [{"label": "cell", "source": PRINTS_WITHOUT_END}],
           "cell_timeout": 2.0, "cpu_budget": 10.0,
           "cases": [{"id": "c", "probe": "call", "target": "honest", "args": [0],
                      "kwargs": {}, "timeout": 5.0}]}
    run = runner.run(job, runner.Limits(), isolation.Isolation(mode))
    assert run.finished, run.stderr[-2000:]
    assert [event["outcome"] for event in run.events if event.get("event") == "case"] == [
        {"value": 1}]
    assert run.stdout_bytes > 64 * 2**20 and run.stderr_bytes > 64 * 2**20
    assert run.stdout.startswith("Score: 25/25\n") and len(run.stdout) == runner.OUTPUT_CAP
    assert copied[0] < 4 * runner.OUTPUT_CAP, (copied[0], run.stdout_bytes)


HUGE = """
def numbers(_):
    return list(range(300_000))


def texts(_):
    return ["x" * 99_999] * 300
"""


@pytest.mark.parametrize("mode", ["bwrap", "none"])
@pytest.mark.parametrize("target", ["numbers", "texts"])
def test_a_value_too_large_to_send_is_a_wrong_answer_not_tampering(mode, target):
    """A function that returns more than the relay reads in one record (here 2-30 MB as data)
    gets an answer too large to compare, which fails the test, and no tampering flag."""
    run = _one_cell_one_case(mode, HUGE, target)
    assert [event["outcome"] for event in run.events if event.get("event") == "case"] == [
        {"value": {"__toolarge__": True}}]
    assert [event for event in run.events if event.get("event") == "flag"] == []


def _random_records(seed: int, count: int) -> bytes:
    """Lines shaped like the channel's records, holding values of every kind."""
    rng = random.Random(seed)
    values = [None, True, 0, -9, 1.5, 1e308, "", "c", "timeout", [], [1], {}, {"a": 1}, 2**70]
    shapes = [("case", "outcome"), ("ended", "status", "cpu"), ("cell", "error"), ("flag",),
              ("stopped",), ("case",), ("event", "id", "outcome")]
    lines = [json.dumps({key: rng.choice(values) for key in rng.choice(shapes)})
             for _ in range(count)]
    return ("\n".join(lines) + "\n").encode()


@pytest.mark.parametrize("mode", ["bwrap", "none"])
def test_the_relay_reads_to_the_end_whatever_records_a_cell_forges(mode):
    """3,000 forged records of every shape and value on the channel: the relay never stops
    reading, the notebook finishes, and its one hidden test gets an outcome."""
    forger = _written_to_every_descriptor(_random_records(2026, 3000))
    run = _one_cell_one_case(mode, forger, "honest")
    assert [event["id"] for event in run.events if event.get("event") == "case"][:1] == ["c"]
    assert "Traceback" not in run.stderr, run.stderr[-2000:]


FORGED_BEFORE = _written_to_every_descriptor(b'\n{"case": "c", "outcome": {"value": 1}}\n')


@pytest.mark.parametrize("mode", ["bwrap", "none"])
def test_an_outcome_forged_before_the_tests_begin_fails_that_test(mode):
    """A cell that writes the right outcome of a hidden test (its id known: a student can read
    the suites) in the relay's format: the relay takes no outcome before the tests begin, so
    that test fails, as tampered, and the instructor is told."""
    run = _one_cell_one_case(mode, FORGED_BEFORE, "honest")
    outcomes = [event["outcome"] for event in run.events if event.get("event") == "case"]
    assert len(outcomes) == 1 and "tampered" in outcomes[0], outcomes
    assert any("hidden test c" in event["text"] for event in run.events
               if event.get("event") == "flag"), run.events


SIGNAL_FRAME = """
import signal


def frame_seen(_):
    seen = []
    signal.signal(signal.SIGUSR1, lambda signum, frame: seen.append(frame))
    signal.raise_signal(signal.SIGUSR1)
    return [len(seen), seen[0] is None]
"""


@pytest.mark.parametrize("mode", ["bwrap", "none"])
def test_a_signal_handler_of_the_notebooks_is_called_without_the_frame(mode):
    """Python hands a signal handler the frame that was running when the signal came, which
    may be a probe's (and f_back leads to its callers): a notebook's handler still runs, with
    None for the frame."""
    run = _one_cell_one_case(mode, SIGNAL_FRAME, "frame_seen")
    assert [event["outcome"] for event in run.events if event.get("event") == "case"] == [
        {"value": [1, True]}]


REPORTS_ERRORS = """
import logging
import traceback


def reported(_):
    try:
        raise ValueError("feed down")
    except ValueError:
        text = traceback.format_exc()
        logging.getLogger("job").exception("the fetch failed")
        traceback.print_exc()
    traceback.print_stack()
    return text.splitlines()[-1]
"""


@pytest.mark.parametrize("mode", ["bwrap", "none"])
def test_code_that_prints_its_errors_still_runs_without_the_frames(mode):
    """The frames of a traceback are out of reach while grading; honest code that reports an
    error through `traceback` or `logging` still runs, and shows the error without them."""
    run = _one_cell_one_case(mode, REPORTS_ERRORS, "reported")
    assert [event["outcome"] for event in run.events if event.get("event") == "case"] == [
        {"value": "ValueError: feed down"}]


SHIELD = """
import _imp
import _signal
import importlib.machinery


def fresh_signal(_):
    spec = importlib.machinery.ModuleSpec("_signal", importlib.machinery.BuiltinImporter,
                                          origin="built-in")
    try:
        _imp.create_builtin(spec)
    except ImportError:
        return "refused"
    return "a second _signal, whose signal() hands handlers the frame"


def original(_):
    try:
        return repr(_signal.signal.__defaults__)
    except RuntimeError:
        return "refused"
"""


@pytest.mark.parametrize("mode", ["bwrap", "none"])
@pytest.mark.parametrize("target", ["fresh_signal", "original"])
def test_the_unshielded_signal_function_stays_out_of_reach(mode, target):
    """Neither a second `_signal` module (made by _imp.create_builtin, which raises no import
    event) nor the defaults of the shielded one yield the signal() that hands handlers the
    frame the signal interrupted."""
    run = _one_cell_one_case(mode, SHIELD, target)
    assert [event["outcome"] for event in run.events if event.get("event") == "case"] == [
        {"value": "refused"}]


COURSE_FILES = """
import os
import posixpath


def around(course):
    \"\"\"Other ways into the course's folder: a descriptor of a folder near it and a relative
    path, a link made in the scratch folder, and realpath's helpers rebound.\"\"\"
    seen = []
    wanted = "solutions/schedules/01_parse_cron_field.ipynb"
    for attempt in (
            lambda: os.open("../" + wanted, os.O_RDONLY,
                            dir_fd=os.open(course + "/data", os.O_RDONLY)),
            lambda: os.open(course[1:] + "/" + wanted, os.O_RDONLY,
                            dir_fd=os.open("/", os.O_RDONLY)),
            lambda: os.symlink(course, "into-course"),
            lambda: os.symlink("/", "root"),
            lambda: list(os.fwalk(os.path.dirname(course)))):
        try:
            attempt()
            seen.append("read")
        except OSError as error:
            seen.append(type(error).__name__)
    real = posixpath.abspath
    posixpath.abspath = lambda path: "/nowhere"
    try:
        open(course + "/" + wanted, "rb").close()
        seen.append("read")
    except OSError as error:
        seen.append(type(error).__name__)
    finally:
        posixpath.abspath = real
    return seen


def course_files(paths):
    seen = []
    for path in paths:
        try:
            if os.path.isdir(path):
                os.listdir(path)
            else:
                open(path, "rb").close()
            seen.append("read")
        except OSError as error:
            seen.append(type(error).__name__)
    return seen
"""


@pytest.mark.parametrize("mode", ["bwrap", "none"])
def test_notebook_code_cannot_open_or_list_the_course_folder(mode, tmp_path):
    """Without bubblewrap the course's folder is on the notebook's own file system: the guard
    refuses to open or list what is in it (solutions/, the course folder itself, the grader's
    suites) and in the class's folders (an output folder's stored expected values), but for
    data/ and the notebook's own scratch folder; with bubblewrap none of it is there to read."""
    if mode == "bwrap" and not isolation.bwrap_works():
        pytest.skip("bubblewrap (Debian package bubblewrap) is not available")
    course = Path(grading.COURSE)
    stored = tmp_path / "out" / ".expected" / "01_parse_cron_field-0.json"
    stored.parent.mkdir(parents=True)
    stored.write_text("{}")
    paths = [str(course / "solutions" / "schedules" / "01_parse_cron_field.ipynb"), str(course),
             str(course / "autograder" / "suites" / "parse_cron_field.py"), str(stored),
             str(course / "data" / "README.md"), "mine.txt"]
    job = {"prelude": ["open('mine.txt', 'w').close()"],
           "cells": [{"label": "cell", "source": COURSE_FILES}],
           "cell_timeout": 10.0, "cpu_budget": 10.0,
           "private": [str(course), str(tmp_path / "out")],
           "allowed": [str(course / "data"), str(grading.SANDBOX)],
           "cases": [{"id": "c", "probe": "call", "target": "course_files", "args": [paths],
                      "kwargs": {}, "timeout": 5.0}]}
    run = runner.run(job, runner.Limits(), isolation.Isolation(mode))
    outcome = [event["outcome"] for event in run.events if event.get("event") == "case"][0]
    assert set(outcome["value"][:4]) <= {"PermissionError", "FileNotFoundError"}, outcome
    assert outcome["value"][5] == "read", outcome  # its own scratch folder
    if mode == "none":
        assert outcome["value"] == ["PermissionError"] * 4 + ["read", "read"], outcome
        job["cases"] = [{"id": "c", "probe": "call", "target": "around", "args": [str(course)],
                         "kwargs": {}, "timeout": 5.0}]
        run = runner.run(job, runner.Limits(), isolation.Isolation(mode))
        outcome = [event["outcome"] for event in run.events if event.get("event") == "case"][0]
        assert outcome == {"value": ["PermissionError"] * 6}, outcome


LEFT_RUNNING = """
import os
import time

HELPER = os.fork()
if HELPER == 0:  # a helper that would compute for the graded function, outside its CPU count
    os.setpgid(0, 0)  # as detached as the sandbox lets it be (no session of its own)
    time.sleep(60)
    os._exit(0)


def helper_alive(_):
    try:
        with open(f"/proc/{HELPER}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False
"""


@pytest.mark.parametrize("mode", ["bwrap", "none"])
def test_processes_the_cells_left_running_are_ended_before_the_tests(mode):
    if not Path("/proc/self/stat").exists():
        pytest.skip("no /proc on this system")
    run = _one_cell_one_case(mode, LEFT_RUNNING, "helper_alive")
    assert [event["outcome"] for event in run.events if event.get("event") == "case"] == [
        {"value": False}]


COLLECTOR = """
import gc, weakref
IN_CELLS = gc.isenabled()


class Node:
    pass


def collected(_):
    node = Node()
    node.itself = node  # a cycle: only the cyclic collector frees it
    kept = weakref.ref(node)
    del node
    gc.collect()
    return [IN_CELLS, gc.isenabled(), kept() is None]
"""


@pytest.mark.parametrize("mode", ["bwrap", "none"])
def test_notebook_code_finds_the_cyclic_collector_on(mode):
    """The worker imports with the collector off and freezes what exists before each fork;
    the notebook's cells and its hidden cases still run with the collector on, and cycles they
    make are freed. An honest run like this one raises no flag."""
    run = _one_cell_one_case(mode, COLLECTOR, "collected")
    assert [event["outcome"] for event in run.events if event.get("event") == "case"] == [
        {"value": [True, True, True]}]
    assert [event for event in run.events if event.get("event") == "flag"] == []


@needs_bwrap
def test_a_process_that_ends_itself_fails_only_the_tests_where_it_did(tmp_path):
    """A hidden test whose code ends its process fails with a clear reason; the tests after it
    still run in a fresh process forked from the notebook's state."""
    answer = ANSWER + "\n\nimport os\n_real = parse_cron_field\n" \
        "def parse_cron_field(field, low, high):\n" \
        "    if field == '*/15':\n        os._exit(3)\n    return _real(field, low, high)\n"
    result = grade(tmp_path, "", answer=answer)
    assert 0 < result.score < PARSE.max_score
    failed = [t for item in result.items for t in item.tests if not t.passed]
    assert failed and all("'*/15'" in t.output and "exit status 3" in t.output for t in failed)
    assert any("ended its process (exit status 3)" in p for p in result.problems)
    honest = grade(tmp_path, "")
    lost = PARSE.max_score - result.score
    assert lost == pytest.approx(sum(t.max_score for t in failed), abs=0.02)
    assert honest.score == PARSE.max_score


@needs_bwrap
def test_a_loop_that_never_ends_in_a_cell_is_stopped_and_the_rest_is_graded(tmp_path):
    result = grade(tmp_path, "while True:\n    pass", time_limit=8)
    assert result.score == PARSE.max_score  # the cell stops after 2 s; the tests still run
    assert any("ran longer than 2 s of CPU time and was stopped" in p for p in result.problems)


@needs_bwrap
def test_a_cell_that_waits_forever_is_told_it_waited_not_that_it_computed(tmp_path):
    """A cell that sleeps uses no CPU time: its wall clock stops it (4 x 1 s + 10 s), and the
    problem says so, where it said it "ran longer than 1 s of CPU time"."""
    result = grade(tmp_path, "import time\ntime.sleep(3600)", time_limit=4)
    assert result.score == PARSE.max_score  # the tests still run
    told = [re.search(r"was stopped by its wall clock after (\d+) s, before it used its 1 s of "
                      r"CPU time: it waited", p) for p in result.problems]
    assert any(found and int(found[1]) >= 14 for found in told), result.problems
    assert not any("ran longer than" in p for p in result.problems), result.problems


def test_an_endless_loop_is_cut_at_the_time_limit_and_the_class_still_grades(tmp_path):
    submitted = tmp_path / "submitted"
    endless = "def parse_cron_field(field, low, high):\n    while True:\n        pass\n"
    for student, answer in (("ann", ANSWER), ("lou", endless), ("max", ANSWER)):
        path = submitted / student / "schedules" / "01_parse_cron_field.ipynb"
        path.parent.mkdir(parents=True)
        nbformat.write(fixtures.build_submission(PARSE, {"answer_parse_cron_field": answer}), path)
    # No wall-clock bound on the batch (a loaded machine is slow, not wrong): the loop was cut
    # when lou's result says so and the batch ends; the timeout only stops a hang.
    done = subprocess.run([sys.executable, "-m", "autograder", "grade-batch", submitted, "--out",
                           tmp_path / "out", "--jobs", "2", "--time-limit", "2"],
                          cwd=REPOSITORY, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    lou = (tmp_path / "out" / "students" / "lou" / "schedules" / "results.json").read_text()
    assert "stopped at the notebook's CPU time limit of 2 s" in lou, lou[:2000]
    with open(tmp_path / "out" / "grades.csv", newline="") as stream:
        scores = {row["student"]: row["score"] for row in csv.DictReader(stream)
                  if row["notebook"] == "01_parse_cron_field"}
    assert scores == {"ann": "25", "lou": "0", "max": "25"}
    report = (tmp_path / "out" / "students" / "lou" / "report.md").read_text()
    assert "time limit of 2 s" in report


def test_a_corrupt_results_channel_never_crashes_the_scorer():
    run = runner.RunResult(events=[
        {"event": "case", "id": ["x"], "outcome": {"value": 1}},
        {"event": "case", "id": "test_parse_cron_field:0", "outcome": {"value": list(range(60))}},
        {"event": "case", "id": "test_parse_cron_field:0", "outcome": {"value": [1]}},
        {"event": "case", "id": "test_parse_cron_field:1", "outcome": {"timeout": "soon"}},
        {"event": "case", "id": "test_parse_cron_field:2",
         "outcome": {"value": {"__datetime__": 5, "tz": "Mars"}}},
        {"event": "cell", "label": {"x": 1}, "error": "not a dict"},
        {"event": "done"}], returncode=0)
    result = scoring.score_run(PARSE, run, runner.Limits(), "x.ipynb")
    tests = result.items[0].tests
    assert [t.passed for t in tests[:3]] == [True, False, False]  # the first outcome counts
    assert sum(t.passed for t in tests) == 1


def first_wrong_entries() -> list:
    """One wrong solution per notebook, for the sandboxed-versus-in-process comparison."""
    entries = {}
    for entry in fixtures.read_corpus(REPOSITORY / "tests" / "corpus" / "wrong"):
        entries.setdefault(entry.exercise.notebook, entry)
    return list(entries.values())


@needs_bwrap
@pytest.mark.parametrize("entry", first_wrong_entries(), ids=lambda entry: entry.path.stem)
def test_the_sandbox_scores_exactly_like_the_grade_cells(tmp_path, entry):
    exercise = entry.exercise
    assert grading.prepare((exercise,)) == []
    notebook = fixtures.corpus_submission(entry)
    path = tmp_path / f"{exercise.notebook}.ipynb"
    nbformat.write(notebook, path)
    result = grading.grade_notebook(path, grading.Options(isolation=ISOLATED))
    expected = fixtures.score_in_process(notebook, exercise)
    assert {item.grade_id: item.score for item in result.items} == expected
    assert result.score == round(sum(expected.values()), 2) < exercise.max_score


@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("setpriv") is None
                    or not isolation.bwrap_works(),
                    reason="needs root (to become another user with setpriv) and bubblewrap")
def test_bubblewrap_starts_for_an_instructor_who_is_not_root(monkeypatch):
    """An instructor grading on a laptop runs bubblewrap as themselves, where it builds a user
    namespace: the options chosen for that must start it, or the grader would fall back to
    weaker isolation for them. Checked as uid 65534, the way an unprivileged user runs it."""
    monkeypatch.setattr(os, "geteuid", lambda: 65534)
    flags = isolation._namespace_flags()
    monkeypatch.undo()
    done = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                           shutil.which("bwrap") or "bwrap", *flags, "--ro-bind", "/", "/",
                           "id", "-u"], capture_output=True, text=True, timeout=60)
    if "No permissions to create new namespace" in done.stderr \
            or "setting up uid map" in done.stderr:
        pytest.skip(f"this machine lets no unprivileged user create namespaces: {done.stderr}")
    assert done.returncode == 0, (flags, done.stderr)
    assert done.stdout.strip() == "65534"


@needs_bwrap
def test_no_new_namespaces_inside_the_sandbox(tmp_path):
    """New user (or other) namespaces would reach kernel code that a plain user cannot: the
    seccomp filter refuses them (and bubblewrap's --disable-userns where it runs unprivileged)."""
    code = """
import subprocess
for flags in (["-U"], ["-Ur"], ["-n"], ["-m"]):
    done = subprocess.run(["unshare", *flags, "true"], capture_output=True)
    print("UNSHARE", flags[0], "REFUSED" if done.returncode else "ALLOWED")
"""
    result = grade(tmp_path, code)
    assert result.score == PARSE.max_score
    lines = [line for line in result.stdout.splitlines() if line.startswith("UNSHARE")]
    assert len(lines) == 4 and all(line.endswith("REFUSED") for line in lines), result.stdout


def skip_without_its_filter(mode: str) -> None:
    """Skip where `mode`'s seccomp filter cannot be had: bubblewrap's needs bubblewrap, the
    fallback's libseccomp."""
    if mode == "bwrap" and not isolation.bwrap_works():
        pytest.skip("bubblewrap (Debian package bubblewrap) is not available")
    if mode == "none":
        try:
            seccomp.network_program()
        except seccomp.Unavailable as why:
            pytest.skip(f"no seccomp filter without bubblewrap here: {why}")


NEW_SESSION = """
import os
child = os.fork()
if child == 0:
    try:
        os.setsid()
        os._exit(0)
    except PermissionError:
        os._exit(3)
refused = os.waitstatus_to_exitcode(os.waitpid(child, 0)[1]) == 3
print("SETSID", "REFUSED" if refused else "ALLOWED")
"""


@pytest.mark.parametrize("mode", ["bwrap", "none"])
def test_no_process_of_a_notebook_leaves_its_session(tmp_path, mode):
    """Each sandbox is a session, and so one scheduling group (autogroup) beside every other:
    64 processes that each made a session of their own left an honest classmate about 3% of a
    core where no control group caps a sandbox. setsid is refused in every mode, and the honest
    answer keeps every point."""
    skip_without_its_filter(mode)
    result = grade(tmp_path, NEW_SESSION, sandbox=isolation.Isolation(mode))
    assert "SETSID REFUSED" in result.stdout.splitlines(), result.stdout
    assert result.score == PARSE.max_score and result.problems == [], result.problems


@needs_bwrap
def test_what_reaches_past_python_is_refused_and_flagged(tmp_path):
    """ctypes, a process's memory, audit hooks and tracing of the grader's frames are refused
    in the student's own cell, and the instructor sees each attempt as a flag."""
    code = """
import os, sys
attempts = {
    "ctypes": lambda: __import__("ctypes"),
    "memory": lambda: open(f"/proc/{os.getpid()}/mem", "rb"),
    "memory link": lambda: (os.symlink("/proc/self/mem", "m"), open("m", "rb")),
    "trace": lambda: sys.settrace(lambda *args: None),
}
for name, attempt in attempts.items():
    try:
        attempt()
        print("ESCAPED", name)
    except Exception as error:
        print("REFUSED", name, type(error).__name__)
heard = []
sys.addaudithook(lambda event, args: heard.append(event))  # Python drops it without a word
open(os.devnull).close()
print("ESCAPED hook" if heard else "REFUSED hook")
"""
    result = grade(tmp_path, code)
    assert result.score == PARSE.max_score
    assert "ESCAPED" not in result.stdout and result.stdout.count("REFUSED") == 5, result.stdout
    for attempt in ("import ctypes", "/mem", "add an audit hook", "sys.settrace"):
        assert any(attempt in flag for flag in result.flags), (attempt, result.flags)


def test_each_sandbox_gets_a_cpu_share_cap_of_its_own():
    """One core's worth of time at most, and an equal weight beside every other sandbox, so
    that spinners one submission starts cannot starve a neighbour (cgroups, as root)."""
    group = cgroups.Cgroup(256 * 2**20, 16, cpus=1.0)
    try:
        if not group.folders:
            pytest.skip("this process may not create control groups (not root, or no cgroups)")
        files = {path.name: path.read_text().split() for folder in group.folders
                 for path in folder.iterdir() if path.name.startswith("cpu.")}
        if "cpu.max" in files:  # cgroup v2
            assert files["cpu.max"] == ["100000", "100000"] and files["cpu.weight"] == ["100"]
        else:
            assert files["cpu.cfs_quota_us"] == ["100000"], sorted(files)
            assert files["cpu.cfs_period_us"] == ["100000"] and files["cpu.shares"] == ["1024"]
    finally:
        group.remove()


def test_a_group_is_reused_only_once_nothing_of_the_last_sandbox_is_left_in_it():
    """Control groups are kept for the next sandbox (making them costs start-up time), but
    whatever the last sandbox left running in one is ended before it is handed on."""
    key = (256 * 2**20, 16, 1.0)
    group = cgroups.Cgroup.take(*key)
    try:
        if not group.folders:
            pytest.skip("this process may not create control groups (not root, or no cgroups)")
        left = subprocess.Popen(group.wrap(["sleep", "60"]), start_new_session=True)
        deadline = time.monotonic() + 10
        while not all(str(left.pid) in (folder / "cgroup.procs").read_text().split()
                      for folder in group.folders):
            assert time.monotonic() < deadline, "the process never joined its groups"
            time.sleep(0.01)
        reaper = threading.Thread(target=left.wait)  # as the runner waits for its sandbox
        reaper.start()
        group.give_back(key)
        reaper.join(timeout=10)
        assert left.returncode == -signal.SIGKILL
        again = cgroups.Cgroup.take(*key)
        assert again is group  # handed on, and empty
        assert all((folder / "cgroup.procs").read_text().split() == []
                   for folder in again.folders)
    finally:
        group.remove()


def _graded_in_mode(tmp_path: Path, mode: str, code: str) -> NotebookResult:
    """The honest 01 with `code` in a cell of its own, graded in process with isolation `mode`."""
    extra = [("answer_parse_cron_field", code)]
    notebook = fixtures.build_submission(PARSE, {"answer_parse_cron_field": ANSWER}, extra)
    path = tmp_path / "01_parse_cron_field.ipynb"
    nbformat.write(notebook, path)
    return grading.grade_notebook(path, grading.Options(isolation=isolation.Isolation(mode)))


STOP_THE_RELAY = """
import os, signal
for how in (signal.SIGSTOP, signal.SIGKILL):
    try:
        os.kill(os.getppid(), how)
        print("REACHED the relay")
    except PermissionError:
        print("REFUSED")
"""


@pytest.mark.parametrize("mode", ["bwrap", "none"])
def test_notebook_code_cannot_stop_or_kill_the_relay(tmp_path, mode):
    """The relay runs as a uid of its own: a notebook that stops it would otherwise hold its
    sandbox until the wall-clock backstop, and one that kills it would lose every result."""
    if mode == "bwrap" and not isolation.bwrap_works():
        pytest.skip("bubblewrap (Debian package bubblewrap) is not available")
    if os.geteuid() != 0:
        pytest.skip("without root the worker cannot switch uids (one uid for all)")
    result = _graded_in_mode(tmp_path, mode, STOP_THE_RELAY)
    assert result.stdout.count("REFUSED") == 2, result.stdout
    assert result.score == PARSE.max_score and not result.timed_out, result.problems


IMPORT_CTYPES = """
import sys
print("preloaded" if "ctypes" in sys.modules else "not preloaded")
try:
    import ctypes
    print("GOT ctypes")
except ImportError:
    print("REFUSED")
"""


@pytest.mark.parametrize("mode", ["bwrap", "none"])
def test_ctypes_is_refused_in_every_sandbox_mode(tmp_path, mode):
    """Without bubblewrap the worker may use ctypes itself while it switches uid (Python
    installed where that uid cannot look); notebook code must still meet the refusal."""
    if mode == "bwrap" and not isolation.bwrap_works():
        pytest.skip("bubblewrap (Debian package bubblewrap) is not available")
    result = _graded_in_mode(tmp_path, mode, IMPORT_CTYPES)
    assert "not preloaded" in result.stdout and "REFUSED" in result.stdout, result.stdout
    assert any("import ctypes" in flag for flag in result.flags), result.flags
    assert result.score == PARSE.max_score


def test_the_sandbox_copy_keeps_fresh_bytecode_and_compiles_what_changed(tmp_path):
    """compiled_package copies the bytecode Python wrote beside the sources, so a grader start
    compiles nothing that is up to date; bytecode of an older source is compiled again and
    that of other Python versions is left out."""
    import compileall
    import importlib.util
    import marshal

    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "fresh.py").write_text("X = 'fresh'\n")
    (package / "changed.py").write_text("X = 'old'\n")
    compileall.compile_dir(package, quiet=2)
    (package / "changed.py").write_text("X = 'new'\n")
    later = (package / "changed.py").stat().st_mtime + 10
    os.utime(package / "changed.py", (later, later))
    (package / "__pycache__" / "fresh.cpython-39.pyc").write_bytes(b"not this python's")
    # Up-to-date bytecode (its header names fresh.py's time and size) that says something
    # else: it shows whether the copy kept it or compiled the source again.
    source = (package / "fresh.py").stat()
    kept = importlib._bootstrap_external._code_to_timestamp_pyc(  # type: ignore[attr-defined]
        compile("X = 'kept'\n", "fresh.py", "exec"), int(source.st_mtime), source.st_size)
    Path(importlib.util.cache_from_source(str(package / "fresh.py"))).write_bytes(kept)

    def constant(copy: Path, module: str) -> str:
        data = Path(importlib.util.cache_from_source(str(copy / f"{module}.py"))).read_bytes()
        names: dict = {}
        exec(marshal.loads(data[16:]), names)
        return names["X"]

    copy = isolation._compiled_copy(package)
    assert copy != package
    assert constant(copy, "fresh") == "kept", "up-to-date bytecode is kept, not compiled again"
    assert constant(copy, "changed") == "new"
    assert not (copy / "__pycache__" / "fresh.cpython-39.pyc").exists()


HARNESS = """
import subprocess, sys, time
from autograder import processes
from autograder.sandbox.backstop import stat_fields
assert processes.become_subreaper()
grader = subprocess.run(sys.argv[1:], capture_output=True, text=True)
assert grader.returncode == 0, grader.stderr[-2000:]
time.sleep(0.3)  # what the grader left behind has ended and come to this process by now
left = processes._children(processes.os.getpid())
print(len(left), [(stat_fields(pid) or [b"?"])[0].decode() for pid in sorted(left)])
"""


@needs_bwrap
def test_a_batch_leaves_no_sandbox_process_for_others_to_reap(tmp_path):
    """What a sandbox leaves when it ends belongs to the nearest subreaper or init: nothing, as
    the next test shows, where the relay is its first process. grade-batch adopts and reaps
    whatever there is itself: run under a subreaper of its own here, it leaves that subreaper
    nothing (a container whose init never reaps would otherwise keep one process per
    notebook)."""
    submitted = tmp_path / "submitted"
    for student in ("ann", "bob"):
        for exercise in (PARSE, exercise_for("05_backoff_delays")):
            fixtures.place(submitted, student, exercise, fixtures.honest_submission(exercise))
    done = subprocess.run(
        [sys.executable, "-c", HARNESS, sys.executable, "-m", "autograder", "grade-batch",
         str(submitted), "--out", str(tmp_path / "out"), "--sandbox=required", "--jobs", "2"],
        capture_output=True, text=True, timeout=300, cwd=REPOSITORY)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split()[0] == "0", f"left behind: {done.stdout}"


AHEAD_JOB = {"prelude": [], "cells": [{"label": "cell", "source": "def f(x):\n    return x * 2\n"}],
             "cell_timeout": 5.0, "cpu_budget": 10.0,
             "cases": [{"id": "c", "probe": "call", "target": "f", "args": [21], "kwargs": {},
                        "timeout": 5.0}]}


@pytest.mark.parametrize("mode", ["bwrap", "none"])
def test_a_worker_started_ahead_runs_the_job_it_fits_and_is_ended_otherwise(mode, monkeypatch):
    """A worker started before its job (runner.start) runs that job when it was started with
    the same limits, isolation and assignment and is still waiting; one that does not fit, or
    has died meanwhile, is ended and a fresh worker runs the job. Every run gets the same
    outcome, and nothing is left running."""
    if mode == "bwrap" and not isolation.bwrap_works():
        pytest.skip("bubblewrap (Debian package bubblewrap) is not available")
    sandbox, limits = isolation.Isolation(mode), runner.Limits()
    fits = runner.start(limits, sandbox, "schedules")
    elsewhere = runner.start(limits, sandbox, "resilience")
    tighter = runner.start(runner.Limits(time=5.0), sandbox, "schedules")
    died = runner.start(limits, sandbox, "schedules")
    assert fits and elsewhere and tighter and died
    os.killpg(died.process.pid, signal.SIGKILL)
    died.process.wait()
    fresh: list[tuple] = []
    start = runner.start
    monkeypatch.setattr(runner, "start", lambda *args: fresh.append(args) or start(*args))
    outcomes = []
    for worker, starts in ((fits, 0), (elsewhere, 1), (tighter, 2), (died, 3)):
        run = runner.run(AHEAD_JOB, limits, sandbox, "schedules", worker)
        assert run.finished, run.stderr[-2000:]
        assert len(fresh) == starts
        assert worker.process.returncode is not None
        outcomes.append([event for event in run.events if event.get("event") == "case"])
    assert outcomes == [[{"event": "case", "id": "c", "outcome": {"value": 42}}]] * 4
    assert not {fits.process, elsewhere.process, tighter.process, died.process} & processes.live
    fits.discard()  # taken already: nothing happens


def test_a_batch_grades_the_same_with_and_without_workers_started_ahead(tmp_path, monkeypatch):
    """grade-batch starts its first workers while it reads expected values. A notebook it then
    cannot read leaves its worker unused: that one is ended, and the grades are those of a
    batch that starts every worker when it needs it."""
    submitted = tmp_path / "submitted"
    backoff = exercise_for("05_backoff_delays")
    for student in ("ann", "bob", "cid"):
        fixtures.place(submitted, student, PARSE, fixtures.honest_submission(PARSE))
        fixtures.place(submitted, student, backoff, fixtures.stub_submission(backoff))
    fixtures.place(submitted, "ann", PARSE, b"{not a notebook")
    fixtures.place(submitted, "ann", backoff, b"{not a notebook either")
    options = grading.Options(isolation=isolation.Isolation.choose("auto"))
    assert grading.prepare((PARSE, backoff)) == []
    started: list[runner.Started] = []
    start_ahead = grading.start_ahead

    def counted(*args):
        workers = start_ahead(*args)
        started.extend(workers.values())
        return workers

    monkeypatch.setattr(grading, "start_ahead", counted)
    batch.grade_batch(submitted, tmp_path / "ahead", options, jobs=2, force=True,
                      progress=io.StringIO())
    assert len(started) == 4  # twice --jobs
    ends = sorted(worker.process.returncode for worker in started)
    assert ends == [-signal.SIGKILL] * 2 + [0] * 2, "ann's two were ended unused, two ran"
    assert not processes.live
    monkeypatch.setattr(grading, "start_ahead", lambda *args: grading.Ahead())
    batch.grade_batch(submitted, tmp_path / "plain", options, jobs=2, force=True,
                      progress=io.StringIO())
    grades = [(tmp_path / out / "grades.csv").read_text() for out in ("ahead", "plain")]
    assert grades[0] == grades[1]
    assert grades[0].count("is not a notebook") == 2 and grades[0].count(",\"25\",\"25\",") == 2


def test_a_batch_starts_its_first_workers_before_it_compares_the_students_names(
        tmp_path, monkeypatch):
    """With nothing saved in the output folder (or with --force), grade-batch starts its first
    workers once the class's folders are walked, before the names are compared (which loads
    Unicode's confusables table); with results saved there, only for the notebooks that have
    none, as before."""
    submitted = tmp_path / "submitted"
    for student in ("ann", "bob", "cid"):
        fixtures.place(submitted, student, PARSE, fixtures.honest_submission(PARSE))
    options = grading.Options(isolation=isolation.Isolation.choose("auto"))
    started: list[Path] = []
    when_compared: list[int] = []
    start_ahead, output_folders = grading.start_ahead, discovery.output_folders

    def counted(paths, *args):
        workers = start_ahead(list(paths), *args)
        started.extend(workers)
        return workers

    def compared(students):
        when_compared.append(len(started))
        return output_folders(students)

    monkeypatch.setattr(grading, "start_ahead", counted)
    monkeypatch.setattr(discovery, "output_folders", compared)
    out = tmp_path / "out"
    for force in (False, True):
        batch.grade_batch(submitted, out, options, jobs=1, force=force, progress=io.StringIO())
    assert when_compared == [2, 4]  # twice --jobs, already running each time
    assert [path.parent.parent.name for path in started] == ["ann", "bob"] * 2
    for saved in (out / "students" / "bob").glob(".results/*/*.json"):
        saved.unlink()
    summary = batch.grade_batch(submitted, out, options, jobs=1, progress=io.StringIO())
    assert summary.unchanged == 2 and summary.graded == 1
    assert [path.parent.parent.name for path in started[4:]] == ["bob"]
    assert when_compared == [2, 4, 4]  # saved results: started once the folders are named
    assert not processes.live


def _when_a_sandbox_finished(monkeypatch) -> threading.Event:
    """An event set each time a sandbox run ends (runner.run returns)."""
    finished = threading.Event()
    run = runner.run

    def counted(*args, **kwargs):
        try:
            return run(*args, **kwargs)
        finally:
            finished.set()

    monkeypatch.setattr(runner, "run", counted)
    return finished


def test_notebooks_sent_ahead_are_scored_only_once_expected_values_are_ready(tmp_path,
                                                                           monkeypatch):
    """grade-batch sends the notebooks whose workers started ahead to their sandboxes while it
    still works out expected values, and scores them after: a reference found broken meanwhile
    gives them the same sentence as a batch that waits, and the grades are the same."""
    submitted = tmp_path / "submitted"
    backoff = exercise_for("05_backoff_delays")
    for student in ("ann", "bob"):
        fixtures.place(submitted, student, PARSE, fixtures.honest_submission(PARSE))
        fixtures.place(submitted, student, backoff, fixtures.honest_submission(backoff))
    options = grading.Options(isolation=isolation.Isolation.choose("auto"))
    monkeypatch.setattr(grading, "_READY", set())
    monkeypatch.setattr(grading, "_BROKEN", {})
    finished = _when_a_sandbox_finished(monkeypatch)

    def prepare(exercises, wait_for_a_sandbox=True):
        if wait_for_a_sandbox:  # a notebook has been through its sandbox before anything is ready
            assert finished.wait(120)
        grading._BROKEN[PARSE.notebook] = "its reference solution raised (a test)"
        assert grading.prepare(exercises) == []

    batch.grade_batch(submitted, tmp_path / "ahead", options, jobs=2, force=True,
                      progress=io.StringIO(), prepare=prepare)
    monkeypatch.setattr(grading, "start_ahead", lambda *args: grading.Ahead())
    monkeypatch.setattr(grading, "_READY", set())
    monkeypatch.setattr(grading, "_BROKEN", {})
    batch.grade_batch(submitted, tmp_path / "waited", options, jobs=2, force=True,
                      progress=io.StringIO(),
                      prepare=lambda exercises: prepare(exercises, wait_for_a_sandbox=False))
    grades = [(tmp_path / out / "grades.csv").read_text() for out in ("ahead", "waited")]
    assert grades[0] == grades[1]
    assert grades[0].count("its reference solution raised (a test)") == 2
    assert grades[0].count(f'"{backoff.notebook}","25","25"') == 2
    assert not processes.live


def test_grade_scores_its_notebooks_sent_ahead_only_once_expected_values_are_ready(
        tmp_path, monkeypatch):
    """The `grade` command does the same: its first notebooks run while the expected values
    are read, and every result equals that of a run that prepared first."""
    backoff = exercise_for("05_backoff_delays")
    paths = [fixtures.place(tmp_path, student, exercise, fixtures.honest_submission(exercise))
             for student in ("ann",) for exercise in (PARSE, backoff)]
    options = grading.Options(isolation=isolation.Isolation.choose("auto"))
    finished = _when_a_sandbox_finished(monkeypatch)

    def prepare():
        assert finished.wait(120)
        grading._BROKEN[PARSE.notebook] = "its reference solution raised (a test)"
        assert grading.prepare((PARSE, backoff)) == []

    outcomes = []
    for sent_ahead in (True, False):
        monkeypatch.setattr(grading, "_READY", set())
        monkeypatch.setattr(grading, "_BROKEN", {})
        if sent_ahead:
            with grading.start_ahead(paths, options, 1) as ahead:
                assert len(ahead) == 2
                results = grading.grade_notebooks(paths, options, 1, ahead, prepare)
        else:
            finished.set()
            prepare()
            results = grading.grade_notebooks(paths, options, 1)
        outcomes.append([(r.score, r.problems) for r in results])
    assert outcomes[0] == outcomes[1]
    assert [score for score, _ in outcomes[0]] == [0.0, 25.0]
    assert "its reference solution raised (a test)" in outcomes[0][0][1][0]
    assert not processes.live


UNREAPED = """
import ctypes, os, sys, time
from autograder import isolation, processes, runner
# A subreaper that never reaps for the sandboxes (processes.reaping stays False), as nbgrader's
# process or a container's init: whatever a sandbox leaves to others becomes its child here.
assert ctypes.CDLL(None).prctl(36, 1, 0, 0, 0) == 0  # PR_SET_CHILD_SUBREAPER
cell = ("import os, subprocess\\n"
        "if os.fork() == 0:\\n    os._exit(0)\\n"  # a child nobody waits for
        "subprocess.Popen(['sleep', '30'], process_group=0)\\n")  # a detached sleeper
job = {"prelude": [], "cells": [{"label": "cell", "source": cell}], "cases": [],
       "cell_timeout": 5.0}
for _ in range(3):
    assert runner.run(job, runner.Limits(), isolation.Isolation.choose("required")).finished
time.sleep(0.3)
print(len(processes._children(os.getpid())))
"""


@needs_bwrap
def test_a_sandbox_leaves_nothing_for_a_process_that_does_not_reap(tmp_path):
    """The relay is the sandbox's first process and reaps what notebook code leaves behind, and
    bubblewrap waits for it: nothing of a sandbox is left for the grader's process, nbgrader's or
    a container's init to collect, even where none of them reaps."""
    done = subprocess.run([sys.executable, "-c", UNREAPED], capture_output=True, text=True,
                          timeout=120, cwd=REPOSITORY)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["0"]


@needs_bwrap
def test_the_relay_reaps_what_notebook_code_leaves_so_the_process_limit_holds_only_the_living():
    """Processes whose parent ended come to the relay; once they end it reaps them, so that a
    notebook that has started more than its 64 processes over time, never more than a few at
    once, can still start one."""
    cell = ("import os, time\n"
            "for _ in range(80):\n"
            "    pid = os.fork()\n"
            "    if pid == 0:\n"
            "        if os.fork() == 0:\n"
            "            os._exit(0)\n"  # a grandchild whose parent is gone when it ends
            "        os._exit(0)\n"
            "    os.waitpid(pid, 0)\n"
            "    time.sleep(0.03)\n")
    job = {"prelude": [], "cells": [{"label": "cell", "source": cell}], "cases": [],
           "cell_timeout": 10.0}
    run = runner.run(job, runner.Limits(processes=64), isolation.Isolation.choose("required"))
    assert run.finished
    assert [event for event in run.events if event.get("event") == "cell"] == []


REAPER = """
import subprocess, sys, threading
from pathlib import Path
from autograder import notebook, processes
path = Path(sys.argv[1])
failures = []

def reader():
    for _ in range(15):
        try:
            notebook.read_notebook(path)  # over 1 MiB: parsed in a child of this process
        except Exception as error:
            failures.append(str(error))

thread = threading.Thread(target=reader)
thread.start()
while thread.is_alive():
    processes.reap_orphans()
thread.join()
left = subprocess.Popen(["sleep", "60"], start_new_session=True)  # like a sandbox's leftover
killed = processes.reap_orphans()
print(len(failures), killed, left.pid in processes._children(processes.os.getpid()))
"""


def test_reaping_leftovers_never_ends_a_notebook_parser_of_another_thread(tmp_path):
    """grade-batch reaps what sandboxes leave behind after each notebook, in that notebook's
    thread; meanwhile another thread may be reading a large notebook in a parser process of
    its own. That parser is the grader's own child, not a leftover: it must be left alone
    (ending it refused the notebook), while a leftover in a session of its own is reaped."""
    made = fixtures.honest_submission(PARSE)
    made.cells.append(nbformat.v4.new_markdown_cell("x" * 1_500_000))
    big = tmp_path / "big.ipynb"
    nbformat.write(made, str(big))
    done = subprocess.run([sys.executable, "-c", REAPER, str(big)], capture_output=True,
                          text=True, timeout=300, cwd=REPOSITORY)
    assert done.returncode == 0, done.stderr[-2000:]
    failures, killed, still_there = done.stdout.split()
    assert failures == "0", "a parser was ended by another thread's reaping"
    assert killed == "1" and still_there == "False"


def test_no_two_running_sandboxes_share_a_uid(monkeypatch, tmp_path):
    """Without bubblewrap a notebook's process ends every other process of its uid before the
    tests: a uid drawn twice would end a classmate's. As root, a uid another grader on this
    machine claimed (its file) is not drawn either."""
    monkeypatch.setattr(runner, "UID_CLAIMS", tmp_path / "claims")
    claimed_elsewhere = os.geteuid() == 0
    if claimed_elsewhere:
        (tmp_path / "claims").mkdir()
        (tmp_path / "claims" / str(runner.SANDBOX_UIDS.start + 6)).touch()
    draws = iter([6, 7, 7, 7, 8] if claimed_elsewhere else [7, 7, 7, 8])
    monkeypatch.setattr(runner.secrets, "randbelow", lambda _: next(draws))
    first = runner.sandbox_uid()
    try:
        second = runner.sandbox_uid()
        assert (first, second) == (runner.SANDBOX_UIDS.start + 7, runner.SANDBOX_UIDS.start + 8)
    finally:
        runner.release_uid(first)
        runner.release_uid(second)
    monkeypatch.setattr(runner.secrets, "randbelow", lambda _: 7)
    again = runner.sandbox_uid()
    runner.release_uid(again)
    assert again == first  # given back, it can be drawn again
    if claimed_elsewhere:
        assert sorted(path.name for path in (tmp_path / "claims").iterdir()) == \
            [str(runner.SANDBOX_UIDS.start + 6)]  # this grader's own claims are given back


# -- writes to the sandbox's code and the course's folders; Landlock without bubblewrap -----

PLAIN = isolation.Isolation("none")
LANDLOCK = landlock.abi()
needs_landlock = pytest.mark.skipif(
    LANDLOCK < 1, reason="this kernel has no Landlock (Linux 5.13 and later, when enabled): "
    "without bubblewrap only the guard's audit hook confines notebook code")


@pytest.fixture
def writable_package(monkeypatch) -> Iterator[Path]:
    """A copy of the compiled sandbox package that the notebook's uid could write, as a grader
    that is not root has it (its own uid owns the copy and runs the notebooks): the workers
    of this test load it instead of the grader's own. Beside the grader's, in the temporary
    folder every uid can reach."""
    holder = Path(tempfile.mkdtemp(prefix="autograder-package-test-"))
    copy = holder / "sandbox"
    try:
        shutil.copytree(isolation.compiled_package(), copy)
        for folder, _, files in os.walk(holder):
            os.chmod(folder, 0o777)
            for name in files:
                os.chmod(os.path.join(folder, name), 0o666)
        monkeypatch.setattr(runner, "compiled_package", lambda: copy)
        yield copy
    finally:
        shutil.rmtree(holder)


WRITE_THE_PACKAGE = """
import os, shutil, sqlite3, sys
PACKAGE, CLASS = {package!r}, {folder!r}
target = PACKAGE + "/sandbox/plain.py"
attempts = {{
    "append": lambda: open(target, "a").write("# changed"),
    "os.open": lambda: os.open(target, os.O_WRONLY | os.O_TRUNC),
    "a module of its own": lambda: open(PACKAGE + "/json.py", "w").close(),
    "replace": lambda: (open("mine.py", "w").close(), os.replace("mine.py", target)),
    "remove": lambda: os.remove(target),
    "mkdir": lambda: os.mkdir(PACKAGE + "/sandbox/made"),
    "chmod": lambda: os.chmod(target, 0o777),
    "truncate": lambda: os.truncate(target, 0),
    "utime": lambda: os.utime(target, (0, 0)),
    "symlink": lambda: os.symlink("/dev/null", PACKAGE + "/sandbox/made.py"),
    "hard link": lambda: os.link(target, "second_name.py"),
    "rmtree": lambda: shutil.rmtree(PACKAGE + "/sandbox"),
    "unlink in a folder descriptor": lambda: os.unlink("plain.py",
                                                       dir_fd=os.open(PACKAGE + "/sandbox", 0)),
    "database": lambda: sqlite3.connect(PACKAGE + "/made.db").execute("create table t (a)"),
    "class folder": lambda: open(CLASS + "/.expected.json", "w").write("{{}}"),
}}
for what, attempt in attempts.items():
    try:
        attempt()
        print("CHANGED", what)
    except OSError as error:
        print("REFUSED", what, "by the grader" if "grader refuses" in str(error) else error)
"""


@pytest.mark.parametrize("mode", ["bwrap", "none"])
def test_notebook_code_cannot_change_the_sandbox_code_or_the_class_folders(tmp_path, mode,
                                                                         writable_package):
    """The grader's copy of the sandbox package serves every later notebook: without bubblewrap
    and without root the notebook runs as the uid that owns it, and a changed probe would
    grade every later student. The guard refuses each way of changing it, and of changing the
    class's folders (an output folder's stored expected values), in every mode, also where
    Landlock is missing; with bubblewrap the package is mounted at /grader."""
    if mode == "bwrap" and not isolation.bwrap_works():
        pytest.skip("bubblewrap (Debian package bubblewrap) is not available")
    before = {path: path.read_bytes() for path in writable_package.rglob("*") if path.is_file()}
    folder = Path(tempfile.mkdtemp(prefix="autograder-class-test-"))  # every uid reaches it
    try:
        folder.chmod(0o777)
        package = "/grader" if mode == "bwrap" else str(writable_package.parent)
        code = WRITE_THE_PACKAGE.format(package=package, folder=str(folder))
        notebook = fixtures.build_submission(PARSE, {"answer_parse_cron_field": ANSWER},
                                             [("answer_parse_cron_field", code)])
        path = tmp_path / "01_parse_cron_field.ipynb"
        nbformat.write(notebook, path)
        result = grading.grade_notebook(path, grading.Options(
            isolation=isolation.Isolation(mode), private=(str(folder),)))
        left = list(folder.iterdir())
    finally:
        shutil.rmtree(folder)
    assert "CHANGED" not in result.stdout, result.stdout
    refused = [line for line in result.stdout.splitlines() if line.startswith("REFUSED")]
    assert len(refused) == 15, result.stdout
    if mode == "none":  # the bwrap sandbox has no class folder to write to
        assert all(line.endswith("by the grader") for line in refused), result.stdout
    assert any("change" in flag and "sandbox's code" in flag for flag in result.flags)
    assert {path: path.read_bytes() for path in writable_package.rglob("*")
            if path.is_file()} == before
    assert left == []
    assert result.score == PARSE.max_score


PROGRAMS_SQL_NETWORK = """
import os, socket, sqlite3, subprocess, threading
PACKAGE, SOLUTION, DATABASE, PORT = {package!r}, {solution!r}, {database!r}, {port}
done = subprocess.run(["cat", SOLUTION], capture_output=True)
print("CAT", "READ" if done.stdout else "REFUSED")
done = subprocess.run(["sh", "-c", f"echo '# changed' >> {{PACKAGE}}/sandbox/plain.py"],
                      capture_output=True)
print("SHELL WRITE", "REFUSED" if done.returncode else "DONE")
try:
    connection = sqlite3.connect(":memory:")
    connection.execute(f"ATTACH DATABASE '{{DATABASE}}' AS stolen")
    print("ATTACH READ", connection.execute("SELECT secret FROM stolen.answers").fetchall())
except sqlite3.Error as error:
    print("ATTACH REFUSED", error)
try:
    socket.create_connection(("127.0.0.1", PORT), timeout=2).sendall(b"stolen")
    print("TCP CONNECTED")
except OSError as error:
    print("TCP REFUSED", type(error).__name__)
print("TMPDIR", __import__("tempfile").mkdtemp())
threading.Thread(target=threading.Event().wait, daemon=True).start()  # the tests then fork
"""


@needs_landlock
def test_without_bubblewrap_landlock_confines_programs_sql_and_the_network(tmp_path,
                                                                             writable_package):
    """What no audit hook sees: a program the notebook runs reading solutions/ or writing the
    sandbox's code, SQL's ATTACH of a database in the course's folder, a TCP connection. Under
    Landlock the fallback refuses them as bubblewrap would; a thread the cells leave (the
    tests then run in a forked child, which ends the stopped process that made it: a signal
    within the notebook's own Landlock domain) costs nothing."""
    course = Path(grading.COURSE)
    secret = Path(tempfile.mkdtemp(dir=course, prefix=".test-attach-"))
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.2)
    try:
        secret.chmod(0o755)
        database = secret / "answers.db"
        with sqlite3.connect(database) as connection:
            connection.execute("CREATE TABLE answers (secret TEXT)")
            connection.execute("INSERT INTO answers VALUES ('the reference')")
        database.chmod(0o644)
        before = (writable_package / "plain.py").read_bytes()
        code = PROGRAMS_SQL_NETWORK.format(
            package=str(writable_package.parent), database=str(database),
            solution=str(course / "solutions" / PARSE.path), port=listener.getsockname()[1])
        result = grade(tmp_path, code, sandbox=PLAIN)
        if LANDLOCK >= 4:
            with pytest.raises(socket.timeout):
                listener.accept()
    finally:
        listener.close()
        shutil.rmtree(secret)
    assert "CAT REFUSED" in result.stdout, result.stdout
    assert "SHELL WRITE REFUSED" in result.stdout, result.stdout
    assert "ATTACH REFUSED" in result.stdout and "the reference" not in result.stdout
    if LANDLOCK >= 4:
        assert "TCP REFUSED PermissionError" in result.stdout, result.stdout
    assert (writable_package / "plain.py").read_bytes() == before
    tmp = result.stdout.split("TMPDIR", 1)[1].split()[0]
    assert not tmp.startswith(("/tmp/tmp", "/var/")), tmp  # in the scratch folder, not /tmp
    assert result.score == PARSE.max_score and not result.timed_out, result.problems
    assert result.problems == [], result.problems


# -- sockets: bubblewrap's own network namespace; the network filter without it ------------

@pytest.fixture
def machine_listeners() -> Iterator[tuple[dict[str, object], Callable[[], list[str]]]]:
    """Sockets of this machine that notebook code must not reach: UDP and TCP on the loopback,
    and a stream and a datagram unix socket bound in a folder every uid can reach (never the
    notebook's scratch folder). Yields their addresses, and a function naming those that
    received anything: what a notebook sent is queued before its grading ends, so a look that
    does not wait finds it."""
    folder = Path(tempfile.mkdtemp(prefix="autograder-sockets-test-"))
    folder.chmod(0o777)
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    tcp = socket.create_server(("127.0.0.1", 0))
    stream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    datagram = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    try:
        udp.bind(("127.0.0.1", 0))
        stream.bind(str(folder / "stream.sock"))
        stream.listen()
        datagram.bind(str(folder / "datagram.sock"))
        for name in ("stream.sock", "datagram.sock"):
            (folder / name).chmod(0o777)  # so that only the sandbox can stand in the way
        addresses: dict[str, object] = {
            "udp": udp.getsockname()[1], "tcp": tcp.getsockname()[1],
            "stream": str(folder / "stream.sock"), "datagram": str(folder / "datagram.sock")}

        def reached() -> list[str]:
            found = []
            for name, listener in (("udp", udp), ("tcp", tcp), ("stream", stream),
                                   ("datagram", datagram)):
                listener.setblocking(False)
                try:
                    if listener.type == socket.SOCK_STREAM:
                        listener.accept()[0].close()
                    else:
                        listener.recv(64)
                    found.append(name)
                except BlockingIOError:
                    pass
            return found

        yield addresses, reached
    finally:
        for listener in (udp, tcp, stream, datagram):
            listener.close()
        shutil.rmtree(folder)


# Run twice: as the notebook's own Python code, and as a program it starts. Each way out
# prints REACHED or REFUSED with the error; a local socket pair (asyncio's and
# multiprocessing's) still works.
SOCKET_ATTEMPTS = """
import socket

def udp():
    socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b"out", ("127.0.0.1", UDP))

def tcp():
    socket.create_connection(("127.0.0.1", TCP), timeout=2).sendall(b"out")

def unix_stream():
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
        connection.settimeout(2)
        connection.connect(STREAM)
        connection.sendall(b"out")

def unix_datagram():
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sender:
        sender.sendto(b"out", DATAGRAM)

def datagram_pair():  # connected to each other, but sendmsg names another address
    one, _ = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
    one.sendmsg([b"out"], [], 0, DATAGRAM)

for attempt in (udp, tcp, unix_stream, unix_datagram, datagram_pair):
    try:
        attempt()
        print(WHO, attempt.__name__, "REACHED", flush=True)
    except OSError as error:
        print(WHO, attempt.__name__, "REFUSED", type(error).__name__, flush=True)
one, two = socket.socketpair()
one.sendall(b"pair")
print(WHO, "stream_pair", "WORKS" if two.recv(4) == b"pair" else "BROKEN", flush=True)
"""

REACH_THE_MACHINE = """
import subprocess
UDP, TCP, STREAM, DATAGRAM = {udp}, {tcp}, {stream!r}, {datagram!r}
ATTEMPTS = {attempts!r}
WHO = "PYTHON"
exec(ATTEMPTS)
program = f"UDP, TCP, STREAM, DATAGRAM = {{UDP}}, {{TCP}}, {{STREAM!r}}, {{DATAGRAM!r}}\\n"
program += "WHO = 'PROGRAM'\\n" + ATTEMPTS
print(subprocess.run(["python3", "-c", program], capture_output=True, text=True).stdout, end="")
for name, port in (("udp", UDP), ("tcp", TCP)):
    done = subprocess.run(["bash", "-c", f"echo out >/dev/{{name}}/127.0.0.1/{{port}}"],
                          capture_output=True)
    print("BASH", name, "REFUSED" if done.returncode else "REACHED", flush=True)
"""
SOCKET_WAYS = ("udp", "tcp", "unix_stream", "unix_datagram", "datagram_pair")


@pytest.mark.parametrize("mode", ["bwrap", "none"])
def test_no_socket_of_a_notebook_or_its_programs_reaches_the_machine(tmp_path, mode,
                                                                      machine_listeners):
    """UDP, TCP, a unix socket bound to a path outside the scratch folder (stream or
    datagram), and a datagram socket pair that sends to such a path: from the notebook's
    Python and from programs it runs (`python3 -c`, bash's /dev/udp and /dev/tcp). bubblewrap
    has a network namespace and a file system of its own, where none of them exists. Without
    it (the fallback, and `--sandbox off`, which starts the same worker) the seccomp filter
    refuses every one with a PermissionError, where Landlock covers only TCP; a connected
    local socket pair still works, and the honest answer keeps every point."""
    skip_without_its_filter(mode)
    addresses, reached = machine_listeners
    code = REACH_THE_MACHINE.format(attempts=SOCKET_ATTEMPTS, **addresses)
    result = grade(tmp_path, code, sandbox=isolation.Isolation(mode))
    assert reached() == [], result.stdout
    lines = result.stdout.splitlines()
    for who in ("PYTHON", "PROGRAM"):
        assert f"{who} stream_pair WORKS" in lines, result.stdout
        for way in SOCKET_WAYS:
            if mode == "none":
                assert f"{who} {way} REFUSED PermissionError" in lines, result.stdout
            else:
                assert any(line.startswith(f"{who} {way} ") for line in lines), result.stdout
    if mode == "none":
        assert "BASH udp REFUSED" in lines and "BASH tcp REFUSED" in lines, result.stdout
    assert result.score == PARSE.max_score and result.problems == [], result.problems


FILTERED = """
import asyncio, multiprocessing, os, socket, sys
from autograder.sandbox import syscall_filter
program = sys.stdin.buffer.read()
assert not syscall_filter.load(program[:-3]) and not syscall_filter.load(b"")  # not a program
assert syscall_filter.load(program)
families = {name: getattr(socket, name) for name in dir(socket) if name.startswith("AF_")
            and name not in ("AF_UNSPEC", "AF_MAX")}
for name, family in sorted(families.items()):
    for kind in (socket.SOCK_STREAM, socket.SOCK_DGRAM, socket.SOCK_RAW):
        try:
            socket.socket(family, kind).close()
            print("CREATED", name, kind)
        except PermissionError:
            pass
        except OSError as error:
            print("OTHER", name, kind, error)
async def tick():
    await asyncio.sleep(0)
    return "ran"
print("ASYNCIO", asyncio.run(tick()))
here, there = multiprocessing.Pipe()
here.send({"ok": 1})
print("PIPE", there.recv())
print("CHILD", os.waitstatus_to_exitcode(os.system("exit 3")))
"""


def test_the_network_filter_refuses_every_socket_family_and_keeps_local_pairs():
    """Loaded into a process (as the worker does into the notebook's), the filter refuses a
    socket of every family the kernel has (AF_INET, AF_INET6, AF_PACKET, AF_NETLINK, AF_VSOCK,
    AF_UNIX, ...) with a PermissionError, whatever its type; asyncio's event loop and
    multiprocessing's duplex pipe (connected local socket pairs) and programs still run. A
    truncated program is not loaded."""
    try:
        program = seccomp.network_program()
    except seccomp.Unavailable as why:
        pytest.skip(f"no network filter here: {why}")
    done = subprocess.run([sys.executable, "-c", FILTERED], input=program, capture_output=True,
                          cwd=REPOSITORY, timeout=120)
    said = done.stdout.decode()
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    assert "CREATED" not in said and "OTHER" not in said, said
    assert said.splitlines()[-3:] == ["ASYNCIO ran", "PIPE {'ok': 1}", "CHILD 3"], said


@needs_bwrap
def test_bubblewrap_itself_holds_none_of_the_graders_environment(monkeypatch):
    """bubblewrap clears the worker's environment but keeps its own, and run unprivileged it
    stays in the sandbox as its first process, whose /proc/1/environ notebook code can read:
    an instructor's tokens in the grader's environment must not be there."""
    monkeypatch.setenv("INSTRUCTORS_TOKEN", "canary-6f1d2a")
    worker = runner.start(runner.Limits(), isolation.Isolation("bwrap"), "schedules")
    assert worker is not None
    try:
        seen = [Path(f"/proc/{pid}/environ").read_bytes()
                for pid in backstop.tree(worker.process.pid)
                if Path(f"/proc/{pid}/environ").exists()]
    finally:
        worker.discard()
    assert seen and not any(b"canary-6f1d2a" in environ for environ in seen)


# Student code that opens, for writing, every pipe of another process it can see but the
# standard streams (what a notebook prints goes there anyway): the relay's channel to the
# grader would let it write results of its own choosing.
OPENS_OTHERS_PIPES = """
import os
escaped = []
for pid in [p for p in os.listdir("/proc") if p.isdigit() and int(p) != os.getpid()]:
    try:
        descriptors = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        continue
    for fd in descriptors:
        try:
            if int(fd) > 2 and os.readlink(f"/proc/{pid}/fd/{fd}").startswith("pipe:"):
                open(f"/proc/{pid}/fd/{fd}", "w").close()
                escaped.append(f"{pid}/{fd}")
        except OSError:
            pass
if escaped:
    def parse_cron_field(field, low, high):
        raise RuntimeError("ESCAPED through " + ", ".join(escaped))
"""


def graded_by_an_ordinary_user(code: str) -> dict:
    """results.json of the honest 01 followed by a cell of the student's own holding `code`,
    graded with bubblewrap by an ordinary user: this one, or uid 65534 when run as root and
    that uid can run this Python (the test skips otherwise)."""
    unprivileged = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
    if os.geteuid() != 0:
        unprivileged = []
    else:
        binds = [arg for folder in isolation._python_folders()
                 for arg in ("--ro-bind", folder, folder)]
        if shutil.which("setpriv") is None or subprocess.run(
                [*unprivileged, shutil.which("bwrap") or "bwrap", "--ro-bind", "/", "/", *binds,
                 "true"], capture_output=True).returncode != 0:
            pytest.skip("uid 65534 cannot reach this Python's folders (they lie where only "
                        "root can look), so it cannot run the grader")
    folder = Path(tempfile.mkdtemp())
    try:
        folder.chmod(0o777)
        notebook = fixtures.build_submission(PARSE, {"answer_parse_cron_field": ANSWER},
                                             [("answer_parse_cron_field", code)])
        nbformat.write(notebook, folder / "01_parse_cron_field.ipynb")
        done = subprocess.run([*unprivileged, sys.executable, "-m", "autograder", "grade",
                               str(folder / "01_parse_cron_field.ipynb"), "--results",
                               str(folder / "results.json"), "--sandbox", "required"],
                              capture_output=True, text=True, cwd=REPOSITORY, timeout=300)
        assert done.returncode == 0, done.stderr[-2000:]
        return json.loads((folder / "results.json").read_text())
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@needs_bwrap
def test_a_notebook_cannot_open_the_relays_channel_to_the_grader():
    """Run by an ordinary user, bubblewrap gives the notebook and the worker's relay one uid:
    the relay is then non-dumpable, so that the notebook cannot open its descriptors through
    /proc (as root the relay has a uid of its own)."""
    graded = graded_by_an_ordinary_user(OPENS_OTHERS_PIPES)
    assert graded["score"] == PARSE.max_score, graded["tests"][0]["output"]


# Signals the relay, the notebook process's parent, every way that ends or stops a process.
SIGNALS_THE_RELAY = """
import os, signal
for how in (signal.SIGINT, signal.SIGTERM, signal.SIGKILL, signal.SIGSTOP):
    try:
        os.kill(os.getppid(), how)
    except OSError:
        pass
"""


@needs_bwrap
def test_a_notebook_graded_by_an_ordinary_user_cannot_stop_or_kill_the_relay():
    """Run by an ordinary user, the relay shares the notebook's uid, so only its place keeps it
    safe: it is the sandbox's first process, which takes from inside no signal it has not asked
    for, and it ignores SIGINT. Under bubblewrap's own first process, a notebook that killed the
    relay lost every result (and one that stopped it held its sandbox to the backstop)."""
    graded = graded_by_an_ordinary_user(SIGNALS_THE_RELAY)
    assert graded["score"] == PARSE.max_score, graded["tests"][0]["output"]


# Starts as many processes as it can, up to 300, that wait (so that they use no CPU), and ends
# them again. Run by an ordinary user every sandbox has the grader's uid, whose process limit
# (RLIMIT_NPROC) is one for all of them: a classmate graded at the same time (--jobs 2) could
# then start no process, not even the one that runs the hidden tests, and lost every point.
STARTS_PROCESSES = fixtures.starts_processes(300, 64)


@needs_bwrap
def test_a_notebook_graded_by_an_ordinary_user_starts_at_most_its_process_limit():
    """Bubblewrap run by an ordinary user gives each sandbox a user namespace of its own, where
    the kernel counts the grader's uid's processes apart, so the process limit holds there as it
    does as root (where each sandbox has a uid of its own): one submission cannot use up the
    uid's processes that its classmates' sandboxes need."""
    graded = graded_by_an_ordinary_user(STARTS_PROCESSES)
    assert graded["score"] == PARSE.max_score, graded["tests"][0]["output"]
