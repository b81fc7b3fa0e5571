"""The instructor's nbgrader workflow on sandboxed scores, in a temporary course.

`nbgrader autograde` (the repository's nbgrader_config.py, with a due date added), then
`generate_feedback`, a manual adjustment through nbgrader's API and `autograde --force`, and
`export` to nbgrader's CSV and to the Canvas CSV. The class of assignment `schedules`:

- ada: honest work, submitted a day and 23 hours after the due date (two started days late);
- bo: a parse_cron_field that never returns (the notebook's time limit), honest 02;
- cy: a parse_cron_field that ends its process (sys.exit, then os._exit), honest 02;
- di: a 01 that is not a notebook at all, honest 02;
- eve: a parse_cron_field whose error message carries HTML and terminal escapes, and a 02
  whose grade cell she rewrote to print a full score;
- fay: a parse_cron_field that allocates 4 GiB, honest 02.
"""

from __future__ import annotations

import csv
import os
import shutil
import subprocess
from pathlib import Path

import fixtures
import nbformat
import pytest
from grader_cli import NBGRADER, nbgrader_course

from autograder import isolation, suite
from autograder.rubric import EXERCISES, exercise_for

PARSE, MATCHES = exercise_for("01_parse_cron_field"), exercise_for("02_cron_matches")
DUE = "2026-01-10 12:00:00 UTC"
ON_TIME, LATE = "2026-01-10 11:59:00 UTC", "2026-01-12 11:00:00 UTC"
MARKUP = "<script>alert('feedback')</script>"
TIME_LIMIT = 5  # seconds of CPU per notebook: bo's endless loop runs this long
STUDENTS = ("ada", "bo", "cy", "di", "eve", "fay")
NOTEBOOKS = (PARSE.notebook, MATCHES.notebook)

pytestmark = pytest.mark.skipif(not isolation.bwrap_works(),
                                reason="the sandbox (bubblewrap) is not available here")


def nbgrader(course: Path, *arguments: str) -> subprocess.CompletedProcess:
    return subprocess.run([NBGRADER, *arguments], cwd=course, capture_output=True, text=True,
                          timeout=600)


def submissions() -> dict[str, dict]:
    escaping = fixtures.build_submission(PARSE, {"answer_parse_cron_field": (
        "def parse_cron_field(field, low, high):\n"
        f"    raise ValueError(\"{MARKUP}\\x1b[2J\\x1b]0;owned\\x07\")")})
    tampered = fixtures.honest_submission(MATCHES)
    for cell in tampered.cells:
        if cell.metadata.get("nbgrader", {}).get("grade"):
            cell.source = "print('cron_matches: 25 / 25 points')\n25"
    honest_02 = fixtures.honest_submission(MATCHES)
    return {
        "ada": {PARSE: fixtures.honest_submission(PARSE), MATCHES: honest_02},
        "bo": {PARSE: fixtures.submission_for(PARSE, "hostile/loop_in_function"),
               MATCHES: honest_02},
        "cy": {PARSE: fixtures.submission_for(PARSE, "hostile/exit_in_function"),
               MATCHES: honest_02},
        "di": {PARSE: fixtures.submission_for(PARSE, "not-json"), MATCHES: honest_02},
        "eve": {PARSE: escaping, MATCHES: tampered},
        "fay": {PARSE: fixtures.submission_for(PARSE, "hostile/memory_hog"), MATCHES: honest_02},
    }


@pytest.fixture(scope="module")
def course(tmp_path_factory, generated_course) -> Path:
    course = tmp_path_factory.mktemp("nbgrader-workflow")
    submitted = nbgrader_course(course, generated_course)
    with open(course / "nbgrader_config.py", "a", encoding="utf-8") as config:
        config.write(f"\nc.LatePenalties.due_dates = {{'schedules': {DUE!r}}}\n"
                     "c.SandboxedGrading.sandbox = 'required'\n"
                     f"c.SandboxedGrading.time_limit = {TIME_LIMIT}\n")
    for student, notebooks in submissions().items():
        for exercise, made in notebooks.items():
            fixtures.place(submitted, student, exercise, made)
        (submitted / student / "schedules" / "timestamp.txt").write_text(
            LATE if student == "ada" else ON_TIME)
    return course


@pytest.fixture(scope="module")
def autograded(course) -> subprocess.CompletedProcess:
    done = nbgrader(course, "autograde", "schedules", "--log-level=WARN")
    assert done.returncode == 0, done.stderr[-3000:]
    return done


def gradebook(course: Path):
    from nbgrader.api import Gradebook

    return Gradebook(f"sqlite:///{course / 'gradebook.db'}")


def cell_scores(course: Path) -> dict[tuple[str, str], float]:
    with gradebook(course) as book:
        return {(student, name): book.find_submission_notebook(name, "schedules", student).score
                for student in STUDENTS for name in NOTEBOOKS}


def grade_cells(course: Path, student: str, notebook: str) -> list:
    path = course / "autograded" / student / "schedules" / f"{notebook}.ipynb"
    cells = nbformat.read(path, as_version=4).cells
    return [cell for cell in cells if cell.metadata.get("nbgrader", {}).get("grade")]


def report_of(course: Path, student: str, notebook: str) -> str:
    return "".join(output.get("text", "") for cell in grade_cells(course, student, notebook)
                   for output in cell.outputs)


def test_every_notebook_is_graded_and_a_failing_one_costs_only_itself(course, autograded):
    assert "Removing failed" not in autograded.stderr
    assert "error processing" not in autograded.stderr
    scores = cell_scores(course)
    assert {student: scores[(student, MATCHES.notebook)] for student in STUDENTS} == \
        {student: 25.0 for student in STUDENTS}, "every sibling of a failing notebook earns 25"
    assert scores[("ada", PARSE.notebook)] == 25.0
    for student in ("bo", "cy", "di", "eve", "fay"):
        assert scores[(student, PARSE.notebook)] == 0.0, student
    with gradebook(course) as book:
        for student in STUDENTS:
            for name in NOTEBOOKS:
                notebook = book.find_submission_notebook(name, "schedules", student)
                assert not notebook.needs_manual_grade, (student, name)


def test_each_grade_cell_says_why(course, autograded):
    assert f"time limit of {TIME_LIMIT} s" in report_of(course, "bo", PARSE.notebook)
    assert "the code under test ended its process" in report_of(course, "cy", PARSE.notebook)
    assert "not valid JSON" in report_of(course, "di", PARSE.notebook)
    assert "MemoryError" in report_of(course, "fay", PARSE.notebook)
    honest = report_of(course, "ada", PARSE.notebook)
    cases = len(suite.exercise_cases(PARSE))
    assert honest.startswith(f"parse_cron_field: 25 / 25 points ({cases} of {cases} hidden tests "
                             "passed)")


def test_grade_cells_name_no_grading_hook_and_escape_what_the_student_wrote(course, autograded):
    for student in STUDENTS:
        for name in NOTEBOOKS:
            for cell in grade_cells(course, student, name):
                assert "autograder" not in cell.source and "grade_cell" not in cell.source
                assert "HIDDEN TESTS" not in cell.source
    eve = report_of(course, "eve", PARSE.notebook)
    assert MARKUP in eve, "the student's own message is shown, as text"
    assert "\x1b" not in eve and "\x07" not in eve and "\\x1b[2J" in eve


def test_only_a_grade_cell_the_student_changed_raises_the_checksum_warning(course, autograded):
    warnings = [line for line in autograded.stderr.splitlines() if "checksum" in line]
    assert len(warnings) == 1 and "test_cron_matches" in warnings[0], warnings
    assert cell_scores(course)[("eve", MATCHES.notebook)] == 25.0


def test_a_late_submission_gets_nbgrader_s_penalty(course, autograded):
    with gradebook(course) as book:
        assert str(book.find_assignment("schedules").duedate) == "2026-01-10 12:00:00"
        late = book.find_submission("schedules", "ada")
        assert late.total_seconds_late == pytest.approx(47 * 3600)
        penalties = {name: book.find_submission_notebook(name, "schedules", "ada")
                     .late_submission_penalty for name in NOTEBOOKS}
        assert penalties == {PARSE.notebook: 5.0, MATCHES.notebook: 5.0}, "20% for 2 days"
        assert (late.score, late.late_submission_penalty) == (50.0, 10.0)
        assert book.find_submission("schedules", "bo").late_submission_penalty == 0


def test_feedback_exists_for_every_notebook_and_shows_the_report_safely(course, autograded):
    done = nbgrader(course, "generate_feedback", "schedules", "--force", "--log-level=ERROR")
    assert done.returncode == 0, done.stderr[-3000:]
    for student in STUDENTS:
        for name in NOTEBOOKS:
            html = (course / "feedback" / student / "schedules" / f"{name}.html").read_text()
            assert "autograder" not in html.replace("autograded", "")
            assert "grade_cell" not in html
            assert "&lt;p&gt;" not in html and "&lt;h1" not in html, (student, name)
    for name in NOTEBOOKS:
        # The course's own Markdown reads as a page: sanitizing what students wrote
        # (nbconvert's clean_html allows no <p> or <h1>) must not show it as tags.
        html = (course / "feedback" / "ada" / "schedules" / f"{name}.html").read_text()
        assert "<h1" in html and "<p>" in html, name
    bo = (course / "feedback" / "bo" / "schedules" / f"{PARSE.notebook}.html").read_text()
    assert f"time limit of {TIME_LIMIT} s" in bo
    eve = (course / "feedback" / "eve" / "schedules" / f"{PARSE.notebook}.html").read_text()
    assert "<script>alert(" not in eve and "&lt;script&gt;alert(" in eve
    assert "\x1b" not in eve


@pytest.fixture(scope="module")
def adjusted(course, autograded, tmp_path_factory) -> tuple[Path, subprocess.CompletedProcess]:
    """A copy of the autograded course where cy's 02 got a manual 20, then `autograde --force`
    ran again for cy (nbgrader's --student; the others keep their first grading). A copy, so
    that the tests reading the first autograde see it in any order."""
    copy = tmp_path_factory.mktemp("nbgrader-adjusted") / "course"
    shutil.copytree(course, copy, symlinks=True)
    with gradebook(copy) as book:
        grade = book.find_grade("test_cron_matches", MATCHES.notebook, "schedules", "cy")
        grade.manual_score = 20
        book.db.commit()
    return copy, nbgrader(copy, "autograde", "schedules", "--student=cy", "--force",
                          "--log-level=WARN")


def test_a_manual_adjustment_survives_autograde_force(adjusted):
    course, done = adjusted
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Removing failed" not in done.stderr
    with gradebook(course) as book:
        grade = book.find_grade("test_cron_matches", MATCHES.notebook, "schedules", "cy")
        assert (grade.auto_score, grade.manual_score, grade.score) == (25.0, 20.0, 20.0)
    assert cell_scores(course)[("cy", PARSE.notebook)] == 0.0
    assert cell_scores(course)[("ada", PARSE.notebook)] == 25.0
    autograded = course / "autograded"
    mtime = {student: (autograded / student / "schedules" / f"{MATCHES.notebook}.ipynb")
             .stat().st_mtime_ns for student in ("ada", "cy")}
    assert mtime["cy"] > mtime["ada"], "--force graded cy's notebooks again"


def test_export_writes_nbgrader_s_csv_and_a_canvas_csv(adjusted):
    course, _ = adjusted
    done = nbgrader(course, "export", "--to", "grades.csv", "--log-level=ERROR")
    assert done.returncode == 0, done.stderr[-3000:]
    with open(course / "grades.csv", newline="") as handle:
        rows = {(r["assignment"], r["student_id"]): r for r in csv.DictReader(handle)}
    assert float(rows[("schedules", "ada")]["score"]) == 40.0, "nbgrader subtracts the penalty"
    assert float(rows[("schedules", "ada")]["late_submission_penalty"]) == 10.0

    done = nbgrader(course, "export", "--exporter=autograder.nbgrader_export.CanvasExportPlugin",
                    "--to", "canvas.csv", "--CanvasExportPlugin.canvas_ids={'schedules': '812'}",
                    "--log-level=ERROR")
    assert done.returncode == 0, done.stderr[-3000:]
    with open(course / "canvas.csv", newline="") as handle:
        table = list(csv.reader(handle))
    header, possible, students = table[0], table[1], table[2:]
    assert header[:5] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
    column = header.index("schedules (812)")
    schedules = sum(e.max_score for e in EXERCISES if e.assignment == "schedules")
    assert possible[0].strip() == "Points Possible" and possible[column] == f"{schedules:g}"
    by_id = {row[2]: row for row in students}
    assert set(by_id) == set(STUDENTS)
    assert by_id["ada"][column] == "40", "50 points less the late penalty"
    assert by_id["cy"][column] == "20", "0 for 01 and the manual 20 for 02"
    assert by_id["ada"][header.index("resilience")] == ""


def test_students_can_still_validate_their_own_notebook(tmp_path):
    """`nbgrader validate` (and the Validate button) runs the student's copy in their kernel."""
    folder = tmp_path / "student"
    folder.mkdir()
    nbformat.write(fixtures.honest_submission(PARSE), str(folder / "honest.ipynb"))
    done = subprocess.run([NBGRADER, "validate", "honest.ipynb"], cwd=folder,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Success! Your notebook passes all the tests." in done.stdout


STUDENT_CONFIG = Path(__file__).resolve().parents[1] / "jupyter" / "student"


@pytest.mark.parametrize("kind", ["untouched", "wrong", "honest"])
def test_validate_in_the_student_lab_fails_a_notebook_whose_self_checks_fail(tmp_path, kind):
    """`make lab`'s Validate button: the student copies' grade cells are empty, so nbgrader's
    default passed an untouched notebook. With the student configuration, an unfinished answer or
    a self-check that disagrees fails validation, and a correct answer still passes."""
    wrong = fixtures.read_corpus_entry(
        fixtures.CORPUS / "wrong" / "01_parse_cron_field" / "duplicates_kept.py")
    notebook = {"untouched": fixtures.released_notebook(PARSE),
                "wrong": fixtures.corpus_submission(wrong),
                "honest": fixtures.honest_submission(PARSE)}[kind]
    nbformat.write(notebook, str(tmp_path / "01_parse_cron_field.ipynb"))
    environment = {**os.environ, "JUPYTER_CONFIG_PATH": str(STUDENT_CONFIG)}
    done = subprocess.run([NBGRADER, "validate", "01_parse_cron_field.ipynb"], cwd=tmp_path,
                          env=environment, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    if kind == "honest":
        assert "Success! Your notebook passes all the tests." in done.stdout, done.stdout[-3000:]
    else:
        assert "VALIDATION FAILED" in done.stdout, done.stdout[-3000:]
        assert "Success!" not in done.stdout
