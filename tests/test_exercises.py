"""Every exercise of the rubric, graded in this process by its hidden suites: the reference
earns exactly the rubric's points, the untouched stub earns nothing, each wrong solution of
tests/corpus/wrong/<notebook>/ loses points on the item its `# loses:` line names (and beats
the reference nowhere), and each honest alternative in tests/corpus/honest/<notebook>/ earns
full marks.

Adding an exercise adds its cases here without a line of test code (CONTRIBUTING.md); the
tests/test_NN_*.py files keep only what is particular to one exercise (its oracles, its
figures, the classic bugs its corpus must hold). `tests/test_grader_corpus.py` grades the
same corpus once more through the sandboxed command line.
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


# A wrong solution's worker thread may die of the very bug a case catches (for example an
# IntegrityError in check-then-insert, notebook 07); that is the student's error, not the test's.
@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")
@pytest.mark.parametrize("entry", entries("wrong"), ids=label)
def test_each_wrong_solution_loses_points_on_its_item(entry):
    exercise = entry.exercise
    reference = reference_points(exercise.notebook)
    lost_on = [grade_id.strip() for grade_id in entry.header["loses"].split(",")]
    assert set(lost_on) <= set(reference), f"{entry.name}: `# loses: {lost_on}` names no item"
    scores = fixtures.score_in_process(fixtures.corpus_submission(entry), exercise)
    for grade_id in lost_on:
        assert scores[grade_id] < reference[grade_id], (
            f"{entry.name} ({entry.header.get('bug')}) kept every point of {grade_id}: {scores}")
    beaten = {g: s for g, s in scores.items() if s > reference[g]}
    assert not beaten, f"{entry.name} beat the reference on {beaten}"


@pytest.mark.parametrize("entry", entries("honest"), ids=label)
def test_each_honest_alternative_earns_full_marks(entry):
    scores = fixtures.score_in_process(fixtures.corpus_submission(entry), entry.exercise)
    assert scores == full_marks(entry.exercise)
