"""The grader's command line as docs/grader.md describes it: `python -m autograder grade` and
`grade-batch`, run as a subprocess the way instructors and Gradescope run it."""

from __future__ import annotations

import csv
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import fixtures
import nbformat
import pytest

from autograder.rubric import EXERCISES, exercise_for

REPOSITORY = Path(__file__).resolve().parent.parent
PARSE = exercise_for("01_parse_cron_field")


def autograder(*args: object, env: dict | None = None) -> subprocess.CompletedProcess:
    # The timeout stops a hang; it is no speed requirement (one call grades every notebook,
    # 03 with its 120 s limit, on a machine that may be loaded).
    return subprocess.run([sys.executable, "-m", "autograder", *map(str, args)],
                          cwd=REPOSITORY, capture_output=True, text=True, timeout=900, env=env)


def write(notebook: nbformat.NotebookNode, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(notebook, path)
    return path


def scores_by_notebook(results: dict) -> dict[str, float]:
    found: dict[str, float] = {}
    for test in results["tests"]:
        notebook = test["name"].split(" · ", 1)[0]
        found[notebook] = found.get(notebook, 0.0) + test["score"]
    return found


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> dict[str, tuple[dict, str]]:
    """Every gradable exercise, honest and untouched, each kind graded by one `grade` call."""
    root = tmp_path_factory.mktemp("grade")
    graded = {}
    for kind, make in (("honest", fixtures.honest_submission), ("stub", fixtures.stub_submission)):
        paths = [write(make(ex), root / kind / f"{ex.notebook}.ipynb") for ex in EXERCISES]
        results = root / f"{kind}.json"
        done = autograder("grade", *paths, "--results", results)
        assert done.returncode == 0, done.stderr
        graded[kind] = (json.loads(results.read_text()), done.stdout)
    return graded


@pytest.mark.parametrize("exercise", EXERCISES, ids=lambda ex: ex.notebook)
def test_honest_work_earns_every_point(graded, exercise):
    results, _ = graded["honest"]
    assert scores_by_notebook(results)[exercise.notebook] == pytest.approx(exercise.max_score,
                                                                          abs=0.01)
    mine = [t for t in results["tests"] if t["name"].startswith(exercise.notebook + " · ")]
    assert mine and all(t["output"] == "passed" for t in mine)


@pytest.mark.parametrize("exercise", EXERCISES, ids=lambda ex: ex.notebook)
def test_untouched_stub_earns_nothing(graded, exercise):
    results, _ = graded["stub"]
    assert scores_by_notebook(results)[exercise.notebook] == 0
    failed = [t for t in results["tests"] if t["name"].startswith(exercise.notebook + " · ")]
    assert all(t["output"] != "passed" and t["output"].strip() for t in failed)


def test_results_json_follows_gradescope_schema(graded):
    results, report = graded["honest"]
    assert results["score"] == pytest.approx(sum(ex.max_score for ex in EXERCISES))
    assert results["max_score"] == pytest.approx(sum(ex.max_score for ex in EXERCISES))
    assert isinstance(results["output"], str) and isinstance(results["execution_time"], float)
    for test in results["tests"]:
        assert set(test) == {"name", "score", "max_score", "output", "visibility"}
        assert test["visibility"] in ("visible", "after_due_date")  # public, hidden tests
        assert 0 <= test["score"] <= test["max_score"]
    names = [t["name"] for t in results["tests"]]
    assert "01_parse_cron_field · parse_cron_field: a star selects every minute 0-59" in names
    assert len(names) == len(set(names))
    assert f"Total: {results['score']:g} / {results['max_score']:g} points" in report


def test_stub_report_says_which_tests_failed_and_why(graded):
    _, report = graded["stub"]
    assert "Failed tests:" in report
    # every hidden case of notebook 01 calls the stub, so its report says so in one line
    assert "**parse_cron_field**: not written yet (all" in report
    assert "NotImplementedError" in report


def test_claimed_points_are_ignored_and_an_exercise_counts_once(tmp_path):
    stub = fixtures.stub_submission(PARSE)
    for cell in stub.cells:
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("grade"):
            meta["points"] = 1000  # the submission claims more than the rubric's points
    claimed = write(stub, tmp_path / "01_parse_cron_field.ipynb")
    copy = write(fixtures.honest_submission(PARSE), tmp_path / "01_parse_cron_field-Copy1.ipynb")
    results = tmp_path / "results.json"
    done = autograder("grade", copy, claimed, "--results", results)
    assert done.returncode == 0
    data = json.loads(results.read_text())
    assert (data["score"], data["max_score"]) == (0, PARSE.max_score)
    assert "not counted" in data["output"]


def test_a_renamed_notebook_is_recognised_by_its_graded_cells(tmp_path):
    renamed = write(fixtures.honest_submission(PARSE), tmp_path / "my homework (1).ipynb")
    results = tmp_path / "results.json"
    assert autograder("grade", renamed, "--results", results).returncode == 0
    assert json.loads(results.read_text())["score"] == PARSE.max_score


def test_an_unreadable_notebook_gets_zero_and_a_message(tmp_path):
    broken = tmp_path / "01_parse_cron_field.ipynb"
    broken.write_text("{ this is not JSON")
    results = tmp_path / "results.json"
    done = autograder("grade", broken, "--results", results)
    assert done.returncode == 0, done.stderr
    data = json.loads(results.read_text())
    assert data["score"] == 0 and data["max_score"] == PARSE.max_score
    assert "not valid JSON" in data["output"]


def test_a_notebook_path_that_does_not_exist_is_a_usage_error(tmp_path):
    results = tmp_path / "results.json"
    done = autograder("grade", tmp_path / "missing.ipynb", "--results", results)
    assert done.returncode == 2 and not results.exists()
    assert done.stderr.strip().splitlines() == [
        f"python -m autograder grade: error: no such notebook: {tmp_path / 'missing.ipynb'}"]


@pytest.fixture(scope="module")
def small_class(tmp_path_factory) -> tuple[Path, Path, subprocess.CompletedProcess]:
    root = tmp_path_factory.mktemp("class")
    submitted, out = root / "submitted", root / "graded"
    name = "schedules/01_parse_cron_field.ipynb"
    write(fixtures.honest_submission(PARSE), submitted / "alice" / name)
    write(fixtures.stub_submission(PARSE), submitted / "bob" / name)
    erin = submitted / "erin" / name
    erin.parent.mkdir(parents=True)
    erin.write_text("not a notebook")
    done = autograder("grade-batch", submitted, "--out", out, "--jobs", 2)
    return submitted, out, done


def read_grades(out: Path) -> list[dict]:
    with open(out / "grades.csv", newline="") as stream:
        return list(csv.DictReader(stream))


def test_grade_batch_writes_gradebook_results_and_reports(small_class):
    _, out, done = small_class
    assert done.returncode == 0, done.stderr
    rows = read_grades(out)
    assert list(rows[0]) == ["student", "assignment", "notebook", "score", "max_score",
                            "submitted_at", "late_by", "penalty", "override", "note", "flags"]
    others = [r for r in rows if r["notebook"] != "01_parse_cron_field"]
    rest = [e for e in EXERCISES if e.assignment == PARSE.assignment and e is not PARSE]
    assert len(others) == 3 * len(rest) and all(r["score"] == "0" and r["note"] == "not submitted"
                                    for r in others)  # the rest of the assignment, per student
    rows = [r for r in rows if r["notebook"] == "01_parse_cron_field"]
    assert [(r["student"], r["notebook"], r["score"], r["max_score"]) for r in rows] == [
        ("alice", "01_parse_cron_field", "25", "25"), ("bob", "01_parse_cron_field", "0", "25"),
        ("erin", "01_parse_cron_field", "0", "25")]
    assert json.loads((out / "students/alice/schedules/results.json").read_text())["score"] == 25
    erin = json.loads((out / "students/erin/schedules/results.json").read_text())
    assert "not valid JSON" in erin["output"]
    bob = (out / "students/bob/report.md").read_text()
    assert "0 / 25 points" in bob and "Failed tests:" in bob
    assert "[1/3]" in done.stderr and "graded 3 notebooks" in done.stderr


def test_a_rerun_grades_only_new_or_changed_notebooks(small_class, tmp_path):
    # On copies of the class and its output: the shared batch stays as first graded for the
    # other tests, whatever order they run in.
    graded_class, graded_out, first = small_class
    assert first.returncode == 0
    submitted, out = tmp_path / "submitted", tmp_path / "graded"
    shutil.copytree(graded_class, submitted)
    shutil.copytree(graded_out, out)
    again = autograder("grade-batch", submitted, "--out", out)
    assert again.returncode == 0, again.stderr
    assert "graded 0 notebooks, skipped 3 unchanged" in again.stderr
    write(fixtures.honest_submission(PARSE), submitted / "bob/schedules/01_parse_cron_field.ipynb")
    changed = autograder("grade-batch", submitted, "--out", out)
    assert "graded 1 notebook, skipped 2 unchanged" in changed.stderr
    assert "bob/schedules/01_parse_cron_field.ipynb" in changed.stderr
    assert {r["student"]: r["score"] for r in read_grades(out)
            if r["notebook"] == "01_parse_cron_field"}["bob"] == "25"


@pytest.mark.parametrize("make_args", [
    lambda tmp: ("grade-batch", tmp / "nowhere", "--out", tmp / "out"),
    lambda tmp: ("grade-batch", tmp / "file.txt", "--out", tmp / "out"),
    lambda tmp: ("grade-batch", tmp / "empty", "--out", tmp / "out"),
    lambda tmp: ("grade", tmp / "x.ipynb"),
    lambda tmp: ("grade", tmp / "x.ipynb", "--results", tmp / "nowhere" / "results.json"),
    lambda tmp: ("grade", tmp / "x.ipynb", "--results", tmp / "r.json", "--jobs", "0"),
    lambda tmp: ("grade-batch", tmp / "empty", "--out", tmp / "out", "--time-limit", "soon"),
    lambda tmp: ("regrade",),
], ids=["missing-class", "class-is-a-file", "empty-class", "no-results", "results-folder-missing",
        "jobs-zero", "bad-time-limit", "unknown-command"])
def test_usage_errors_exit_2_with_one_sentence(tmp_path, make_args):
    (tmp_path / "file.txt").write_text("x")
    (tmp_path / "empty").mkdir()
    done = autograder(*make_args(tmp_path))
    assert done.returncode == 2
    assert "Traceback" not in done.stderr and "error:" in done.stderr
    assert len(done.stderr.strip().splitlines()) <= 2  # argparse adds its usage line
    assert not (tmp_path / "out" / "grades.csv").exists()


def test_help_documents_the_defaults():
    done = autograder("--help")
    assert done.returncode == 0
    for text in ("60 s", "1024 MiB", "bubblewrap", "grade-batch"):
        assert text in done.stdout


def test_without_bubblewrap_it_warns_or_refuses_as_asked(tmp_path):
    empty = tmp_path / "bin"
    empty.mkdir()
    env = {**os.environ, "PATH": str(empty)}  # no bwrap on PATH
    path = write(fixtures.honest_submission(PARSE), tmp_path / "01_parse_cron_field.ipynb")
    refused = autograder("grade", path, "--results", tmp_path / "r.json", "--sandbox=required",
                         env=env)
    assert refused.returncode == 1 and "bubblewrap" in refused.stderr
    assert "Traceback" not in refused.stderr and not (tmp_path / "r.json").exists()
    reduced = autograder("grade", path, "--results", tmp_path / "r.json", env=env)
    assert reduced.returncode == 0 and "reduced isolation" in reduced.stderr
    assert json.loads((tmp_path / "r.json").read_text())["score"] == PARSE.max_score


def test_the_command_ends_straight_out_with_its_clean_ups_done_and_its_code_kept(tmp_path):
    """`python -m autograder` skips the interpreter's teardown at the end, but not its exit
    handlers: the private copy of the sandbox package is gone, every file and line is written,
    and the exit code is the command's own."""
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    env = {**os.environ, "TMPDIR": str(temporary)}
    submitted = tmp_path / "submitted"
    fixtures.place(submitted, "ada", PARSE, fixtures.honest_submission(PARSE))
    done = autograder("grade-batch", submitted, "--out", tmp_path / "out", env=env)
    assert done.returncode == 0, done.stderr
    assert "graded 1 notebook" in done.stderr and done.stderr.endswith("\n")
    rows = list(csv.DictReader((tmp_path / "out" / "grades.csv").open()))
    assert {row["student"] for row in rows} == {"ada"}
    assert {row["notebook"]: row["score"] for row in rows}[PARSE.notebook] == "25"
    assert not list(temporary.glob("autograder-package-*")), list(temporary.iterdir())
    refused = autograder("grade-batch", tmp_path / "nowhere", "--out", tmp_path / "out2", env=env)
    assert refused.returncode == 2 and "does not exist" in refused.stderr


@pytest.mark.parametrize("command", ["grade", "grade-batch"])
def test_ctrl_c_ends_the_running_sandboxes_and_the_command_at_once(tmp_path, command):
    """Ctrl-C while a notebook that loops for its whole minute is in its sandbox: the command
    says it was interrupted and ends with 130 long before that minute is over."""
    path = fixtures.place(tmp_path / "submitted", "ada", PARSE,
                          fixtures.submission_for(PARSE, "hostile/loop_in_function"))
    arguments = [path, "--results", tmp_path / "r.json"] if command == "grade" else [
        tmp_path / "submitted", "--out", tmp_path / "out"]
    process = subprocess.Popen(
        [sys.executable, "-m", "autograder", command, *map(str, arguments)], cwd=REPOSITORY,
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    time.sleep(3)  # whether the sandbox has started yet or not, the answer is the same
    interrupted = time.monotonic()
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=300)
    assert process.returncode == 130, stderr
    assert "interrupted" in stderr
    assert time.monotonic() - interrupted < 30  # the loop alone would take 60 s
