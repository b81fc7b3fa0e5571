"""Through the sandboxed command line, with the rubric's limits: honest solutions earn full
marks, untouched stubs earn 0, and the alternative honest solutions in tests/corpus/honest/
(such as the plain minute-by-minute search notebook 03 describes) earn full marks too.

All of it is one `python -m autograder grade-batch --sandbox=required` run: one student per
corpus entry, plus an honest and an untouched student with every notebook. The wrong-solution
corpus goes through the same command line in tests/test_agreement.py, which checks that each
entry loses points on the item its `# loses:` line names.
"""

from __future__ import annotations

import json

import fixtures
import pytest
from grader_cli import Grades, grade_batch, place

from autograder.reference import REPOSITORY
from autograder.rubric import EXERCISES

CORPUS = REPOSITORY / "tests" / "corpus"
# No --time-limit: each notebook gets its rubric limit (03 needs 120 s for an honest
# minute-by-minute search on a loaded machine), as students do.
OPTIONS = ["--sandbox=required", "--jobs", "2"]


def entries(kind: str) -> list[fixtures.CorpusEntry]:
    return [fixtures.read_corpus_entry(p) for p in sorted((CORPUS / kind).glob("*/*.py"))]


def label(entry: fixtures.CorpusEntry) -> str:
    return f"{entry.path.parent.name}/{entry.name}"


def student(kind: str, entry: fixtures.CorpusEntry) -> str:
    return f"{kind}-{entry.exercise.notebook[:2]}-{entry.name}"


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    root = tmp_path_factory.mktemp("corpus-class")
    submitted, out = root / "submitted", root / "graded"
    for exercise in EXERCISES:
        place(submitted, "honest", exercise, fixtures.honest_submission(exercise))
        place(submitted, "untouched", exercise, fixtures.stub_submission(exercise))
    for entry in entries("honest"):
        place(submitted, student("honest", entry), entry.exercise,
              fixtures.corpus_submission(entry))
    done = grade_batch(submitted, out, *OPTIONS)
    if done.returncode == 1 and "bubblewrap" in done.stderr:
        pytest.skip(f"the sandbox is not available here: {done.stderr.strip()[-300:]}")
    assert done.returncode == 0, done.stderr[-3000:]
    return out, Grades.read(out)


@pytest.mark.parametrize("exercise", EXERCISES, ids=lambda e: e.notebook)
def test_honest_earns_full_marks_and_stub_earns_nothing(graded, exercise):
    out, grades = graded
    assert grades.rows[("honest", exercise.notebook)] == (exercise.max_score, exercise.max_score)
    assert grades.rows[("untouched", exercise.notebook)] == (0, exercise.max_score)
    saved = out / "students" / "honest" / exercise.assignment / "results.json"
    results = json.loads(saved.read_text())
    assert results["score"] == results["max_score"]


@pytest.mark.parametrize("entry", entries("honest"), ids=label)
def test_alternative_honest_solutions_earn_full_marks(graded, entry):
    _, grades = graded
    exercise = entry.exercise
    assert grades.score(student("honest", entry), exercise.notebook) == exercise.max_score
