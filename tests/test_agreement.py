"""nbgrader autograde and `python -m autograder grade` give every notebook the same score.

This is also the instructor's nbgrader workflow end to end: generate_assignment from
solutions/, submissions in submitted/<student>/<assignment>/, `nbgrader autograde`, scores read
from nbgrader's gradebook. The reference answers earn every point and untouched copies 0.

A small sample per exercise whose notebooks exist: the honest answers, the untouched stub and
one entry of the wrong-solution corpus (the first one that ends within the time limits; a
different one each run would make failures hard to repeat). nbgrader grades them in a
temporary course built from solutions/; our grader grades each student's notebooks with one
`grade` call. Scores must agree within 0.01 per notebook.
"""

from __future__ import annotations

import json

import pytest
from grader_cli import (
    existing_exercises,
    grade,
    nbgrader_autograde,
    nbgrader_course,
    place,
    wrong_kinds,
)

from autograder import fixtures
from autograder.rubric import Exercise


def first_wrong(exercise: Exercise) -> str | None:
    kinds = wrong_kinds(exercise)
    return kinds[0] if kinds else None


def sample() -> dict[str, dict[Exercise, str]]:
    """student -> {exercise: kind of submission}."""
    students: dict[str, dict[Exercise, str]] = {"honest": {}, "untouched": {}, "buggy": {}}
    for exercise in existing_exercises():
        students["honest"][exercise] = "honest"
        students["untouched"][exercise] = "stub"
        wrong = first_wrong(exercise)
        if wrong:
            students["buggy"][exercise] = wrong
    return students


@pytest.fixture(scope="module")
def scores(tmp_path_factory) -> dict[tuple[str, str], tuple[float, float]]:
    """(student, notebook) -> (nbgrader's score, our grader's score)."""
    course = tmp_path_factory.mktemp("agreement-course")
    submitted = nbgrader_course(course)
    ours = {}
    for student, kinds in sample().items():
        paths = [place(submitted, student, exercise, fixtures.submission_for(exercise, kind))
                 for exercise, kind in kinds.items()]
        done = grade(paths, course / f"{student}.json", "--sandbox=required")
        if done.returncode == 1 and "bubblewrap" in done.stderr:
            pytest.skip(f"the sandbox is not available here: {done.stderr.strip()[-300:]}")
        assert done.returncode == 0, done.stderr[-3000:]
        tests = json.loads((course / f"{student}.json").read_text())["tests"]
        for exercise in kinds:
            ours[(student, exercise.notebook)] = round(sum(
                t["score"] for t in tests if t["name"].startswith(exercise.notebook + " ")), 2)
    theirs = nbgrader_autograde(course)
    return {key: (theirs[key], ours[key]) for key in ours}


@pytest.mark.parametrize("student,exercise,kind",
                         [(s, e, k) for s, kinds in sample().items() for e, k in kinds.items()],
                         ids=lambda value: getattr(value, "notebook", str(value)))
def test_nbgrader_and_our_grader_agree(scores, student, exercise, kind):
    theirs, ours = scores[(student, exercise.notebook)]
    assert abs(theirs - ours) <= 0.01, (
        f"{exercise.notebook} ({kind}): nbgrader gave {theirs}, python -m autograder {ours}")
    if kind == "honest":
        assert theirs == exercise.max_score, "the reference answers earn every point"
    elif kind == "stub":
        assert theirs == 0, "an untouched student copy earns nothing"
    else:
        assert theirs < exercise.max_score, f"{kind} should lose points"


def test_every_exercise_is_in_the_sample():
    from autograder.rubric import EXERCISES

    assert [e.notebook for e in existing_exercises()] == [e.notebook for e in EXERCISES]
