"""Expected values are worked out once per fingerprint, stored, and reused (autograder/expected.py).

Graded through the command line, as an instructor or Gradescope's container runs it: the first
run stores the values, a second run with the same grader reads them back and says so, and the
scores are the same either way; a damaged store is ignored and the values computed again.
"""

from __future__ import annotations

import json

import fixtures
import nbformat
from grader_cli import grade

from autograder.rubric import exercise_for

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
