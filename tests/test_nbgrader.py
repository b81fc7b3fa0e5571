"""Under nbgrader itself, the reference answers earn every point and untouched copies earn 0.

This runs the instructor's workflow from the README in a temporary course folder:
`nbgrader generate_assignment`, students' notebooks in submitted/<student>/<assignment>/,
then `nbgrader autograde <assignment>`, and reads the scores from nbgrader's gradebook.
"""

import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from nbgrader.api import Gradebook

from autograder import fixtures
from autograder.reference import SOLUTIONS
from autograder.rubric import EXERCISES

REPOSITORY = SOLUTIONS.parent
NBGRADER = str(Path(sys.executable).parent / "nbgrader")
STUDENTS = {"honest": fixtures.honest_submission, "untouched": fixtures.stub_submission}


@pytest.fixture(scope="module")
def gradebook(tmp_path_factory) -> Path:
    course = tmp_path_factory.mktemp("nbgrader-course")
    shutil.copytree(SOLUTIONS, course / "solutions")
    shutil.copy(REPOSITORY / "nbgrader_config.py", course / "nbgrader_config.py")
    assignments = sorted({e.assignment for e in EXERCISES if (SOLUTIONS / e.path).is_file()})
    for assignment in assignments:
        subprocess.run([NBGRADER, "generate_assignment", assignment, "--force",
                        "--log-level=ERROR"], cwd=course, check=True, capture_output=True)
    for student, make in STUDENTS.items():
        for exercise in EXERCISES:
            if (SOLUTIONS / exercise.path).is_file():
                target = course / "submitted" / student / exercise.path
                target.parent.mkdir(parents=True, exist_ok=True)
                nbformat.write(make(exercise), str(target))
    for assignment in assignments:
        done = subprocess.run([NBGRADER, "autograde", assignment, "--log-level=ERROR"],
                              cwd=course, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr[-3000:]
    return course / "gradebook.db"


@pytest.mark.parametrize("exercise", EXERCISES, ids=lambda e: e.notebook)
@pytest.mark.parametrize("student", list(STUDENTS))
def test_nbgrader_autograde_scores(gradebook, exercise, student):
    assert (SOLUTIONS / exercise.path).is_file(), f"solutions/{exercise.path} is missing"
    with Gradebook(f"sqlite:///{gradebook}") as book:
        submission = book.find_submission_notebook(exercise.notebook, exercise.assignment, student)
        scores = {grade.name: grade.score for grade in submission.grades
                  if grade.name.startswith("test_")}
    expected = {item.grade_id: (item.points if student == "honest" else 0)
                for item in exercise.items}
    assert scores == expected
