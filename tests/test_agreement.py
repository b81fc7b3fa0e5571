"""`nbgrader autograde` and `python -m autograder grade-batch` give every notebook the same score.

This is also the instructor's nbgrader workflow end to end: generate_assignment from
solutions/, submissions in submitted/<student>/<assignment>/, `nbgrader autograde` with the
repository's nbgrader_config.py (sandboxed), scores read from nbgrader's gradebook.

One class holds the honest answers and the untouched stubs of every exercise, every entry of
the wrong-solution corpus (student wrong-NN holds the NN-th entry of each exercise; each must
also lose points on the item its `# loses:` line names, in grade-batch's results.json) and every
hostile submission of tests/test_hostile.py, one student each: corpus entries, damaged
documents and tampered metadata, including the three cheats that once won under nbgrader
(grader_imported_runs_reference, grader_judge_patched, grader_hook_faked). Both graders use
the same limits (the rubric's; the hostile test's for hostile students, so their loops end
sooner), and must agree exactly on every notebook nbgrader knows.

The hostile students are graded here by nbgrader only: nbgrader must give each of them exactly
what tests/test_hostile.py holds grade-batch to (the entry's `# max-points:`, or what its
yardstick earns), so the two graders agree on them too, and the hostile corpus, the slowest part
of the suite, is not graded by grade-batch a second time.
"""

from __future__ import annotations

import os
from functools import cache
from pathlib import Path

import fixtures
import pytest
from grader_cli import Grades, NbgraderRuns, grade_batch, item_scores, nbgrader_course
from test_hostile import LIMITS, Hostile, hostile_students

from autograder.reference import REPOSITORY
from autograder.rubric import EXERCISES, Exercise

HOSTILE_LIMITS = tuple(LIMITS[LIMITS.index("--time-limit"):])  # the hostile test's own
CHEATS = ("grader_imported_runs_reference", "grader_judge_patched", "grader_hook_faked")
WRONG = REPOSITORY / "tests" / "corpus" / "wrong"


def wrong_rounds() -> dict[str, dict[Exercise, str]]:
    """student wrong-NN -> {exercise: the NN-th wrong entry of that exercise}."""
    rounds: dict[str, dict[Exercise, str]] = {}
    for exercise in EXERCISES:
        for index, path in enumerate(sorted((WRONG / exercise.notebook).glob("*.py"))):
            rounds.setdefault(f"wrong-{index:02d}", {})[exercise] = \
                f"wrong/{exercise.notebook}/{path.stem}"
    return rounds


@cache
def _entries() -> tuple[Hostile, ...]:
    """The hostile corpus, built once per process (reading it and building its notebooks takes
    a twentieth of a second, and the tests ask for it once per case). Read, never changed."""
    return tuple(hostile_students())


def twins() -> dict[str, Hostile]:
    """student -> the first hostile entry whose yardstick that student submits: the notebook
    whose score bounds what the hostile entry may earn (entries with the same yardstick share
    its twin, and one student)."""
    first: dict[str, Hostile] = {}
    for entry in _entries():
        if entry.twin:
            first.setdefault(entry.twin, entry)
    return {f"twin-{entry.name}": entry for entry in first.values()}


def twin_student(entry: Hostile) -> str:
    return f"twin-{next(other.name for other in _entries() if other.twin == entry.twin)}"


def hostile() -> dict[str, Hostile]:
    return {f"hostile-{entry.name}": entry for entry in _entries()}


def place_class(submitted: Path, hostile_ones: bool) -> None:
    """The hostile students, or everyone else, in SUBMITTED/<student>/<assignment>/."""
    if not hostile_ones:
        for exercise in EXERCISES:
            fixtures.place(submitted, "ok-honest", exercise, fixtures.honest_submission(exercise))
            fixtures.place(submitted, "ok-untouched", exercise,
                           fixtures.stub_submission(exercise))
        for student, kinds in wrong_rounds().items():
            for exercise, kind in kinds.items():
                fixtures.place(submitted, student, exercise,
                               fixtures.submission_for(exercise, kind))
        for student, entry in twins().items():
            fixtures.place(submitted, student, entry.exercise, entry.yardstick)
        return
    for student, entry in hostile().items():
        for name, made in entry.files.items():
            target = submitted / student / entry.exercise.assignment / name
            if isinstance(made, os.PathLike):
                target.parent.mkdir(parents=True, exist_ok=True)
                target.symlink_to(made)
            else:
                fixtures.place(submitted, student, entry.exercise, made, name)


@pytest.fixture(scope="module")
def course(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("agreement-course")


@pytest.fixture(scope="module")
def scores(course, generated_course) -> dict[tuple[str, str], tuple[float, float | None]]:
    """(student, notebook) -> (nbgrader's score, grade-batch's score; None for the hostile
    students, whom only nbgrader grades here).

    The hostile students are graded with the hostile test's limits (their loops end sooner),
    everyone else with the rubric's: a notebook stopped at its time limit earns what finished,
    which depends on the machine's speed, so both graders must see the same limits."""
    submitted = nbgrader_course(course, generated_course)
    for hostile_ones in (False, True):
        place_class(submitted, hostile_ones)
    # nbgrader works while grade-batch grades the same class.
    nbgrader = NbgraderRuns(
        course, "--SandboxedGrading.sandbox=required",
        groups={"hostile-*": (f"--SandboxedGrading.time_limit={HOSTILE_LIMITS[1]}",
                              f"--SandboxedGrading.memory_limit={HOSTILE_LIMITS[3]}"),
                "[!h]*": ()},
        refused=tuple(s for s, entry in hostile().items() if not submits_the_notebook(entry)),
        per_assignment=False)
    try:
        others = course / "class-others"
        place_class(others, hostile_ones=False)
        done = grade_batch(others, course / "batch-others", "--sandbox=required", "--jobs", "2")
        if done.returncode == 1 and "bubblewrap" in done.stderr:
            pytest.skip(f"the sandbox is not available here: {done.stderr.strip()[-300:]}")
        assert done.returncode == 0, done.stderr[-3000:]
        ours = {key: score for key, (score, _) in
                Grades.read(course / "batch-others").rows.items()}
    except BaseException:
        nbgrader.stop()
        raise
    theirs = nbgrader.scores()
    return {key: (score, None if key[0] in hostile() else ours.get(key, 0.0))
            for key, score in theirs.items()}


def submits_the_notebook(entry: Hostile) -> bool:
    """False for a hostile student whose files hold no notebook of the assignment (nbgrader
    then refuses the submission, with an error naming the student)."""
    return f"{entry.exercise.notebook}.ipynb" in entry.files


def students() -> list[tuple[str, Exercise, str]]:
    found = [("ok-honest", e, "honest") for e in EXERCISES]
    found += [("ok-untouched", e, "stub") for e in EXERCISES]
    found += [(s, e, kind) for s, kinds in wrong_rounds().items() for e, kind in kinds.items()]
    found += [(s, entry.exercise, f"yardstick/{entry.name}") for s, entry in twins().items()]
    found += [(s, entry.exercise, f"hostile/{entry.name}") for s, entry in hostile().items()
              if submits_the_notebook(entry)]
    return found


def cases() -> list:
    return [pytest.param(s, e, k, id=f"{e.notebook[:2]}-{k}") for s, e, k in students()]


@pytest.mark.parametrize("student,exercise,kind", cases())
def test_nbgrader_and_grade_batch_agree(scores, student, exercise, kind):
    assert (student, exercise.notebook) in scores, \
        f"nbgrader recorded no score for {student}'s {exercise.notebook} ({kind})"
    theirs, ours = scores[(student, exercise.notebook)]
    if kind.startswith("hostile/"):  # a student's total, as tests/test_hostile.py counts it
        theirs = sum(score for (who, _), (score, _) in scores.items() if who == student)
        ours = may_earn(scores, hostile()[student])  # exactly what grade-batch earns for it
    assert ours is not None and abs(theirs - ours) <= 0.01, (
        f"{exercise.notebook} ({kind}): nbgrader autograde gave {theirs}, grade-batch {ours}")
    if kind == "honest":
        assert theirs == exercise.max_score, "the reference answers earn every point"
    elif kind == "stub":
        assert theirs == 0, "an untouched student copy earns nothing"
    elif kind.startswith("wrong/"):
        assert theirs < exercise.max_score, f"{kind} should lose points"


def wrong_cases() -> list:
    return [pytest.param(student, exercise, kind, id=kind.removeprefix("wrong/"))
            for student, kinds in wrong_rounds().items() for exercise, kind in kinds.items()]


@pytest.mark.parametrize("student,exercise,kind", wrong_cases())
def test_each_classic_bug_loses_points_on_its_item(scores, course, student, exercise, kind):
    entry = fixtures.read_corpus_entry(REPOSITORY / "tests" / "corpus" / f"{kind}.py")
    results = course / "batch-others" / "students" / student / exercise.assignment
    earned = item_scores(results / "results.json", exercise)
    for grade_id in entry.header["loses"].split(","):
        item = next(i for i in exercise.items if i.grade_id == grade_id.strip())
        assert earned[item.grade_id] < item.points, (
            f"{kind} should lose points on {item.grade_id}: {earned}")


@pytest.mark.parametrize("cheat", CHEATS)
def test_the_cheats_that_won_under_nbgrader_earn_nothing(scores, cheat):
    assert scores[(f"hostile-{cheat}", "01_parse_cron_field")][0] == 0.0


def may_earn(scores, entry: Hostile) -> float:
    """Exactly what a hostile entry earns: its `# max-points:`, or what its yardstick earns."""
    if entry.twin:
        return scores[(twin_student(entry), entry.exercise.notebook)][0]
    assert entry.max_points is not None
    return entry.max_points


def test_hostile_submissions_earn_no_more_than_they_may(scores):
    too_much = {}
    for student, entry in hostile().items():
        limit = may_earn(scores, entry)
        earned = scores.get((student, entry.exercise.notebook), (0.0, 0.0))[0]
        if earned > limit:
            too_much[entry.name] = (earned, limit)
    assert not too_much, f"hostile notebooks earned more than they may under nbgrader: {too_much}"


def test_the_grader_cheats_are_in_the_hostile_sample():
    assert set(CHEATS) <= {entry.name for entry in hostile_students()}
