"""Every exercise of the rubric, graded in this process by its hidden suites: the reference
earns exactly the rubric's points, the untouched stub earns nothing, and every exercise keeps
a wrong-solution corpus in tests/corpus/wrong/<notebook>/.

Each corpus is graded once per run in each way: in this process by tests/test_fairness.py
(each wrong solution loses points on the item its `# loses:` line names, and only the cases
its bug changes), and through the sandboxed command line: the wrong solutions by
tests/test_agreement.py (with nbgrader's autograde beside it), the honest alternatives in
tests/corpus/honest/<notebook>/ by tests/test_grader_corpus.py (they earn full marks).

Adding an exercise adds its cases here without a line of test code (CONTRIBUTING.md); the
tests/test_NN_*.py files keep only what is particular to one exercise (its oracles, its
figures, the classic bugs its corpus must hold).
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import fixtures
import pytest

from autograder.rubric import EXERCISES, Exercise, exercise_for

CORPUS = Path(__file__).parent / "corpus"


def entries(kind: str) -> list[fixtures.CorpusEntry]:
    return [fixtures.read_corpus_entry(path)
            for path in sorted((CORPUS / kind).glob("*/*.py"))]


def label(entry: fixtures.CorpusEntry) -> str:
    return f"{entry.path.parent.name}/{entry.name}"


def full_marks(exercise: Exercise) -> dict[str, float]:
    return {item.grade_id: item.points for item in exercise.items}


@cache
def reference_points(notebook: str) -> dict[str, float]:
    """The reference's points per item, graded once per run (keyed by the notebook's name so
    every test may ask first, in any order)."""
    exercise = exercise_for(notebook)
    assert exercise is not None
    return fixtures.score_in_process(fixtures.honest_submission(exercise), exercise)


@pytest.mark.parametrize("exercise", EXERCISES, ids=lambda e: e.notebook)
def test_the_reference_earns_exactly_the_rubrics_points(exercise):
    assert reference_points(exercise.notebook) == full_marks(exercise)


@pytest.mark.parametrize("exercise", EXERCISES, ids=lambda e: e.notebook)
def test_an_untouched_stub_earns_nothing(exercise):
    scores = fixtures.score_in_process(fixtures.stub_submission(exercise), exercise)
    assert scores == {grade_id: 0 for grade_id in full_marks(exercise)}


@pytest.mark.parametrize("exercise", EXERCISES, ids=lambda e: e.notebook)
def test_every_exercise_keeps_a_wrong_solution_corpus(exercise):
    folder = CORPUS / "wrong" / exercise.notebook
    assert sorted(folder.glob("*.py")), f"{folder} holds no wrong solution"


@pytest.mark.parametrize("kind", ["wrong", "honest"])
def test_every_corpus_folder_is_an_exercise_and_its_entries_say_so(kind):
    for folder in sorted(p for p in (CORPUS / kind).iterdir() if p.is_dir()):
        assert exercise_for(folder.name), f"{folder} is named after no exercise of the rubric"
        for path in sorted(folder.glob("*.py")):
            entry = fixtures.read_corpus_entry(path)
            assert entry.header["notebook"] == folder.name, path
