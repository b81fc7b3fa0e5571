"""Expected values are worked out once per fingerprint, stored, and reused (autograder/expected.py).

Graded through the command line, as an instructor or Gradescope's container runs it: the first
run stores the values, a second run with the same grader reads them back and says so, and the
scores are the same either way; a damaged store is ignored and the values computed again.
The store also keeps what the reference's hidden tests cost, so that a batch grades the
costliest exercises first.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import fixtures
import nbformat
from grader_cli import grade, place

from autograder import batch, expected, grading, suite
from autograder.isolation import Isolation
from autograder.results import not_graded
from autograder.rubric import EXERCISES, exercise_for

PARSE = exercise_for("01_parse_cron_field")
BUGGY = "wrong/01_parse_cron_field/exclusive_range_end"


def test_stored_expected_values_are_reused_and_give_the_same_scores(tmp_path):
    notebooks = []
    for kind in ("honest", BUGGY):
        path = tmp_path / kind.replace("/", "_") / f"{PARSE.notebook}.ipynb"
        path.parent.mkdir(parents=True)
        nbformat.write(fixtures.submission_for(PARSE, kind), path)
        notebooks.append(path)
    store = tmp_path / "expected"
    scores = {}
    for run in ("first", "second"):
        for path in notebooks:
            results = tmp_path / f"{run}-{path.parent.name}.json"
            done = grade([path], results, "--expected", str(store))
            assert done.returncode == 0, done.stderr
            assert ("reused from" in done.stderr) == (run == "second" or path != notebooks[0])
            scores[run, path.parent.name] = json.loads(results.read_text())["score"]
    assert len(list(store.glob(f"{PARSE.notebook}-*.json"))) == 1
    for name in ("honest", BUGGY.replace("/", "_")):
        assert scores["first", name] == scores["second", name]
    assert scores["first", "honest"] == PARSE.max_score > scores["first", BUGGY.replace("/", "_")]


def test_a_damaged_store_is_ignored(tmp_path):
    path = tmp_path / f"{PARSE.notebook}.ipynb"
    nbformat.write(fixtures.submission_for(PARSE, "honest"), path)
    store = tmp_path / "expected"
    assert grade([path], tmp_path / "a.json", "--expected", str(store)).returncode == 0
    (stored,) = store.glob("*.json")
    data = json.loads(stored.read_text())
    first = next(iter(data))
    data[first][0] = {"value": {"__nope__": 1}}  # not an outcome the harness makes
    stored.write_text(json.dumps(data))
    done = grade([path], tmp_path / "b.json", "--expected", str(store))
    assert done.returncode == 0 and "reused from" not in done.stderr
    assert json.loads((tmp_path / "b.json").read_text())["score"] == PARSE.max_score
    assert json.loads(stored.read_text()) != data  # computed again and stored afresh


def test_storing_removes_what_an_earlier_grader_stored_for_the_exercise(tmp_path,
                                                                        monkeypatch):
    """A changed grader (another fingerprint) stores afresh and drops the old file of the same
    exercise; another exercise's file and files of other names stay."""
    monkeypatch.setattr(grading, "_COST", {})
    assert grading.prepare((PARSE,)) == []
    other = tmp_path / f"02_cron_matches-{'c' * 24}.json"
    kept = [other, tmp_path / f"{PARSE.notebook}-notes.json", tmp_path / "README.txt"]
    for path in kept:
        path.write_text("{}")
    for digest in ("a" * 64, "b" * 64):
        monkeypatch.setattr(batch, "files_digest", lambda exercise=None, digest=digest: digest)
        expected.save(tmp_path, PARSE)
    assert sorted(path.name for path in tmp_path.iterdir()) == sorted(
        [f"{PARSE.notebook}-{'b' * 24}.json"] + [path.name for path in kept])
    assert expected.load(tmp_path, PARSE)


# -- the costliest exercises first ------------------------------------------------------------

def test_the_store_keeps_what_the_reference_cost(tmp_path, monkeypatch):
    # The reference really runs, whatever an earlier test in this process left computed.
    monkeypatch.setattr(grading, "_COST", {})
    monkeypatch.setattr(suite, "_STORED", {})
    suite.expected_outcomes.cache_clear()
    assert grading.prepare((PARSE,)) == []
    assert grading.cost(PARSE) >= 0 and PARSE.notebook in grading._COST
    # Warm, the reference takes about a millisecond, below what some kernels' CPU clocks
    # resolve (0.0 there): the round trip is checked on a cost that cannot be mistaken.
    spent = 0.0421
    grading._COST[PARSE.notebook] = spent
    expected.save(tmp_path, PARSE)
    grading._COST.clear()
    assert grading.cost(PARSE) == 0.0
    assert expected.load(tmp_path, PARSE)
    assert grading.cost(PARSE) == round(spent, 4)


def test_a_batch_grades_the_costliest_exercises_first(tmp_path, monkeypatch):
    exercises = EXERCISES[:3]
    submitted = tmp_path / "submitted"
    for student in ("ann", "bob"):
        for exercise in exercises:
            place(submitted, student, exercise, fixtures.stub_submission(exercise))
    costs = {exercises[0].notebook: 0.01, exercises[1].notebook: 0.5}  # the third: unknown
    monkeypatch.setattr(grading, "_COST", costs)
    order = []

    def grade(path, options, shown_as=None, within=None, ahead=None, prepared=None):
        order.append((Path(path).parts[-3], Path(path).stem))
        return not_graded(shown_as or str(path), exercise_for(Path(path).name), "fake", path)

    monkeypatch.setattr(grading, "grade_safely", grade)
    # Notebooks whose workers start ahead go to their sandboxes first, before any cost is
    # known (test_sandbox.py); without them, the order is the costliest first.
    monkeypatch.setattr(grading, "start_ahead", lambda *args: grading.Ahead())
    batch.grade_batch(submitted, tmp_path / "out", grading.Options(isolation=Isolation("none")),
                      jobs=1, progress=open(os.devnull, "w"), prepare=lambda found: None)
    ranked = sorted(exercises, key=lambda e: -costs.get(e.notebook, 0.0))
    assert order == [(student, e.notebook) for e in ranked for student in ("ann", "bob")]


def test_grade_reports_in_the_given_order_after_grading_the_costliest_first(tmp_path,
                                                                           monkeypatch):
    paths = [tmp_path / f"{e.notebook}.ipynb" for e in EXERCISES]
    monkeypatch.setattr(grading, "_COST", {EXERCISES[-1].notebook: 1.0,
                                           EXERCISES[2].notebook: 0.5})
    order = []

    def grade(path, options, ahead=None, prepared=None):
        order.append(path)
        return not_graded(str(path), exercise_for(path.name), "fake", path)

    monkeypatch.setattr(grading, "grade_safely", grade)
    results = grading.grade_notebooks(paths, grading.Options(isolation=Isolation("none")), 1)
    assert order[:2] == [paths[-1], paths[2]] and sorted(order) == sorted(paths)
    assert [r.path for r in results] == [str(p) for p in paths]


def test_a_run_from_stored_values_imports_neither_nbformat_nor_the_probes(tmp_path):
    """Preparing from stored values and reading a saved notebook, as every grading run does
    before its sandboxes start: no nbformat and jsonschema (a saved notebook is read without
    them) and no probe module (the probes run in the sandbox)."""
    import subprocess
    import sys

    store = tmp_path / "expected"
    notebook = Path(__file__).resolve().parent.parent / "notebooks" / PARSE.path
    code = (
        "import sys\n"
        "from pathlib import Path\n"
        "from autograder import expected, grading\n"
        "from autograder.notebook import extract, read_notebook\n"
        "from autograder.rubric import exercise_for\n"
        "exercise = exercise_for('01_parse_cron_field')\n"
        "expected.prepare((exercise,), Path(sys.argv[1]))\n"
        "extract(read_notebook(Path(sys.argv[2])), exercise)\n"
        "heavy = [name for name in sys.modules if name.split('.')[0] in "
        "('nbformat', 'jsonschema', 'fastjsonschema') or name.startswith("
        "'autograder.sandbox.probes.')]\n"
        "print(' '.join(sorted(heavy)))\n")
    first = subprocess.run([sys.executable, "-c", code, str(store), str(notebook)],
                           capture_output=True, text=True, check=True)
    assert first.stdout.split(), "working out the values runs the probes here"
    assert list(store.glob("*.json")), first.stderr
    second = subprocess.run([sys.executable, "-c", code, str(store), str(notebook)],
                            capture_output=True, text=True, check=True)
    assert second.stdout.split() == []
