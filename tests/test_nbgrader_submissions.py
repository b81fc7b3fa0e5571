"""`nbgrader autograde` and `generate_feedback` read a class's folders as grade-batch does.

nbgrader itself follows symbolic links in `submitted/`, reads student ids as glob patterns and
copies every file beside the notebooks (and reads timestamp.txt) through whatever a link
points to. The course's nbgrader_config.py installs `nbgrader_autograde.guard_submissions`,
so in a temporary course whose class holds:

- ada: honest 01; bo: honest 01 with `timestamp.txt` a link to /dev/zero (read forever);
  stamp: honest 01 with a `timestamp.txt` of terminal escapes (nbgrader's traceback quoted it);
- mallory: `schedules/` is a link to ada's (her score, without a word);
- `ad[a]`: a stub, whose name as a pattern matches ada's folder;
- leaky: a stub, with links beside it to the source notebook, a hidden suite, the gradebook
  and /dev/zero (each copied whole into `autograded/` and then into the student's feedback);

- students whose folder names nbgrader would mishandle: a line break (nbgrader stopped the
  whole batch there), a terminal escape, HTML (Formgrader showed it as markup), a name that is
  not UTF-8, and a hidden `.late` (passed over in silence); `zz`, honest, sorts after them,
  and hands in pages of its own beside the notebook (`index.html`, a `02_cron_matches.html`);
- pipe: 01 is a named pipe (nbgrader waited on it for ever);
- cased: honest 01 in `Schedules/` (nbgrader passed over it without a word);
- ansi: honest, with an added grade cell whose grade_id is terminal escapes; ctype: honest,
  whose grade cell's type is terminal escapes (nbformat's validation error named it raw);
- attach: honest, with an image whose attachment is missing (nbgrader's feedback failed);
- `=2+5`, `@SUM(A1)` and `ada,,,,0,0,0,50`: stubs, whose ids nbgrader's export wrote raw;
- `José` as a zip made on a Mac holds it (`Jose` + U+0301): a stub, while the gradebook holds
  `José` typed as one letter and `ZZ` (added with `nbgrader db student add`), which read like
  it and like zz in Formgrader;

ada, bo, zz, ansi, ctype and attach earn their points (bo on time), mallory, `ad[a]` and the other
names nbgrader would mishandle are refused with a reason and earn nothing, and so is stamp
(nbgrader reads no time in its timestamp.txt), the pipe earns 0,
nothing a link points to reaches `autograded/` or `feedback/`, no student's own file reaches
`feedback/` (only the generated pages and nbgrader's own files), no terminal escape reaches
the log, and the log names the ids that read alike.
"""

from __future__ import annotations

import copy
import html
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import fixtures
import nbformat
import pytest
from grader_cli import NBGRADER, nbgrader_course

from autograder import isolation
from autograder.reference import REPOSITORY
from autograder.rubric import exercise_for

PARSE = exercise_for("01_parse_cron_field")
LINKS = {"notes.html": "../../../solutions/schedules/01_parse_cron_field.ipynb",
         "suite.html": str(REPOSITORY / "autograder" / "suites" / "parse_cron_field.py"),
         "grades.html": "../../../gradebook.db", "data.csv": "/dev/zero"}

# Markdown a student adds: HTML that would run in the feedback page and in Formgrader, which
# shows the autograded notebook on the instructor's own Jupyter server.
MARKUP = ('<img src=x onerror="fetch(\'/api/terminals\', {method: \'POST\'})">'
          "<script>alert(document.cookie)</script>")
# Links whose address runs code (as written, entity-encoded, with a tab a browser drops, by
# reference), beside one that must stay a link.
LINKS_MARKDOWN = ("[Open my chart](javascript:fetch('/api/terminals',{method:'POST'})) "
                  "[ent](&#106;avascript:alert(2)) [tab](<java&#9;script:alert(3)>) [r] "
                  "![pic](javascript:alert(4)) [docs](https://example.com/cron)\n\n"
                  "[r]: javascript:alert(document.cookie)")

# Student folders whose names nbgrader would use unescaped.
MISHANDLED = ("new\nline", "esc\x1b[31mred", "<img src=x onerror=alert(1)>",
              os.fsdecode(b"zo\xeb"))
ESCAPES = "\x1b[2J\x1b[31mFAKE: all students 0 points\x1b[0m"
FORMULAS = ("=2+5", "@SUM(A1)", "ada,,,,0,0,0,50")
# Files zz hands in beside the notebook: pages that would pass for the course's feedback (one
# for a notebook zz did not submit), and what nbgrader itself keeps beside a submission.
SPOOFS = {"index.html": "<script>fetch('/api/terminals', {method: 'POST'})</script>",
          "02_cron_matches.html": "<h1>Feedback: 25 / 25</h1>",
          f"{ESCAPES}.html": "<p>a name with terminal escapes</p>", "notes.txt": "mine",
          "timestamp.txt": "2026-03-01 12:00:00.000000 UTC", "submission_secret.txt": "s3cret"}
NFD, NFC = "Jose\u0301", "Jos\u00e9"  # `José` as a zip made on a Mac holds it, and as typed

pytestmark = pytest.mark.skipif(not isolation.bwrap_works(),
                                reason="the sandbox (bubblewrap) is not available here")


def nbgrader(course: Path, *arguments: str) -> subprocess.CompletedProcess:
    return subprocess.run([NBGRADER, *arguments], cwd=course, capture_output=True, text=True,
                          timeout=600)


@pytest.fixture(scope="module")
def course(tmp_path_factory, generated_course) -> Path:
    course = tmp_path_factory.mktemp("nbgrader-links")
    submitted = nbgrader_course(course, generated_course)
    honest, stub = fixtures.honest_submission(PARSE), fixtures.stub_submission(PARSE)
    marked = copy.deepcopy(honest)
    marked.cells.insert(1, nbformat.v4.new_markdown_cell(f"My notes {MARKUP} **in bold**"))
    marked.cells.insert(2, nbformat.v4.new_markdown_cell(LINKS_MARKDOWN))
    escaped = copy.deepcopy(honest)
    added = nbformat.v4.new_code_cell("x = 1")
    added.metadata["nbgrader"] = {"grade": True, "solution": False, "locked": False,
                                  "points": 5, "grade_id": ESCAPES, "schema_version": 3}
    escaped.cells.append(added)
    attached = copy.deepcopy(honest)
    attached.cells.insert(1, nbformat.v4.new_markdown_cell(
        "My chart: ![weekly runs](attachment:missing.png)"))
    for student, made in (("ada", marked), ("bo", honest), ("ad[a]", stub), ("leaky", stub),
                          *((name, honest) for name in (*MISHANDLED, ".late", "zz")),
                          ("ansi", escaped), ("attach", attached),
                          *((name, stub) for name in (*FORMULAS, NFD))):
        fixtures.place(submitted, student, PARSE, made)
    (submitted / "pipe" / "schedules").mkdir(parents=True)
    os.mkfifo(submitted / "pipe" / "schedules" / f"{PARSE.notebook}.ipynb")
    os.symlink("/dev/zero", submitted / "bo" / "schedules" / "timestamp.txt")
    fixtures.place(submitted, "stamp", PARSE, honest)
    fixtures.place(submitted, "cased", PARSE, honest)
    (submitted / "cased" / "schedules").rename(submitted / "cased" / "Schedules")
    typed = json.loads(nbformat.writes(honest))
    for cell in typed["cells"]:
        if cell["metadata"].get("nbgrader", {}).get("grade"):
            cell["cell_type"] = ESCAPES
    fixtures.place(submitted, "ctype", PARSE, json.dumps(typed))
    (submitted / "stamp" / "schedules" / "timestamp.txt").write_text(ESCAPES)
    (submitted / "mallory").mkdir()
    os.symlink("../ada/schedules", submitted / "mallory" / "schedules")
    for name, target in LINKS.items():
        os.symlink(target, submitted / "leaky" / "schedules" / name)
    for name, text in SPOOFS.items():
        (submitted / "zz" / "schedules" / name).write_text(text)
    for student in (NFC, "ZZ"):
        added = nbgrader(course, "db", "student", "add", student, "--log-level=WARN")
        assert added.returncode == 0, added.stderr[-3000:]
    autograde = nbgrader(course, "autograde", "schedules", "--log-level=WARN")
    feedback = nbgrader(course, "generate_feedback", "schedules", "--log-level=WARN")
    assert feedback.returncode == 0, feedback.stderr[-3000:]
    (course / "feedback.log").write_text(feedback.stderr)
    export = nbgrader(course, "export", "--log-level=WARN")
    assert export.returncode == 0, export.stderr[-3000:]
    return course, autograde


def scores(course: Path) -> dict[str, float | None]:
    from nbgrader.api import Gradebook, MissingEntry

    found: dict[str, float | None] = {}
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as book:
        known = {student.id for student in book.students}
        for student in ("ada", "bo", "mallory", "ad[a]", "leaky", *MISHANDLED, ".late", "zz",
                        "pipe", "ansi", "attach", "stamp", "ctype"):
            if student not in known:  # a name that is not UTF-8 cannot even be looked up
                found[student] = None
                continue
            try:
                found[student] = book.find_submission_notebook(
                    PARSE.notebook, "schedules", student).score
            except MissingEntry:
                found[student] = None
    return found


def test_only_each_students_own_work_is_graded(course):
    course, autograde = course
    assert scores(course) == {"ada": 25.0, "bo": 25.0, "mallory": None, "ad[a]": None,
                              "leaky": 0.0, **dict.fromkeys(MISHANDLED), ".late": None,
                              "zz": 25.0, "pipe": 0.0, "ansi": 25.0, "attach": 25.0,
                              "stamp": None, "ctype": 25.0}, \
        autograde.stderr[-3000:]
    assert "mallory/schedules is a symbolic link" in autograde.stderr
    assert "'ad[a]' has a glob character" in autograde.stderr
    assert not (course / "autograded" / "mallory").exists()


def test_a_student_id_nbgrader_would_mishandle_is_refused_without_stopping_the_batch(course):
    """A line break stopped nbgrader's whole batch; a terminal escape reached the terminal;
    HTML in an id was shown as markup by Formgrader; a name that is not UTF-8 failed."""
    course, autograde = course
    for words in ("'new\\nline' has a control or format character",
                  "'esc\\e[31mred' has a control or format character",
                  "'<img src=x onerror=alert(1)>' has a character that HTML reads as markup",
                  "b'zo\\xeb' is not named in UTF-8",
                  "'.late' starts with '.', and nbgrader passes over hidden folders"):
        assert f"Not graded: the student folder {words}" in autograde.stderr, \
            autograde.stderr[-3000:]
    assert "Could not match" not in autograde.stderr  # nbgrader's error that stopped the batch
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as book:
        ids = {student.id for student in book.students}
    assert not ids & {*MISHANDLED, ".late"} and "zz" in ids


def test_an_assignment_folder_spelled_in_another_case_is_named_in_the_log(course):
    """nbgrader matches `schedules` letter for letter: `cased/Schedules/` was passed over
    without a word, where grade-batch grades it."""
    course, autograde = course
    assert ("Not graded: the folder 'Schedules' of student 'cased' is not spelled like the "
            "assignment 'schedules'") in autograde.stderr, autograde.stderr[-3000:]
    assert not (course / "autograded" / "cased").exists()


def test_no_terminal_escape_a_student_wrote_reaches_nbgrader_s_log(course):
    course, autograde = course
    assert "\x1b" not in autograde.stderr
    assert "\\e[2J\\e[31mFAKE" in autograde.stderr  # named, with its escapes visible


def test_a_student_id_that_reads_like_another_is_graded_apart_and_named_in_the_log(course):
    """nbgrader made the Mac's `Jose` + U+0301 a student beside the `José` the instructor
    added, and nothing said so: both stay students (either may be real), and the log names
    the two in code points, and zz beside the gradebook's ZZ."""
    course, autograde = course
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as book:
        assert {NFD, NFC, "zz", "ZZ"} <= {student.id for student in book.students}
        assert book.find_submission_notebook(PARSE.notebook, "schedules", NFD).score == 0
    log = " ".join(autograde.stderr.split())  # as one line, whatever the log's width
    assert (f"The student id '{NFD}' (Jose\\u0301) is not in Unicode's normal form NFC (a zip "
            "made on a Mac writes accents as characters of their own) and reads like the "
            f"gradebook's student '{NFC}' (Jos\\u00e9) (the same id in NFC): nbgrader grades it "
            "as a student of its own") in log, autograde.stderr[-3000:]
    assert "The student id 'zz' reads like the gradebook's student 'ZZ'" in log
    assert "The student id 'ada'" not in log


def test_a_timestamp_that_names_no_time_fails_that_submission_in_one_sentence(course):
    """nbgrader failed stamp's submission with dateutil's traceback, which quoted the file's
    text (terminal escapes) raw; now one sentence names the file, and only stamp is affected
    (zz, after it, earns full marks: test_only_each_students_own_work_is_graded)."""
    course, autograde = course
    assert "stamp/schedules/timestamp.txt names no time nbgrader can read" in autograde.stderr
    assert "Unknown string format" not in autograde.stderr, autograde.stderr[-3000:]


def test_a_named_pipe_named_like_a_notebook_earns_0_with_a_reason(course):
    course, autograde = course
    report = nbformat.read(course / "autograded" / "pipe" / "schedules"
                           / f"{PARSE.notebook}.ipynb", as_version=4)
    text = "".join(output.get("text", "") for cell in report.cells
                   for output in cell.get("outputs", []))
    assert "not a regular file" in text, text[:2000]


def test_an_image_whose_attachment_is_missing_leaves_feedback_and_formgrader_working(course):
    course, _ = course
    page = (course / "feedback" / "attach" / "schedules" / f"{PARSE.notebook}.html")
    for shown in (page.read_text(), formgrader_view(course, "attach")):
        assert "My chart: weekly runs" in shown


def test_nbgrader_export_quotes_every_field_and_runs_no_formula(course):
    course, _ = course
    text = (course / "grades.csv").read_text()
    assert all(line.startswith('"') and line.endswith('"') for line in text.splitlines())
    import csv

    students = [row["student_id"] for row in csv.DictReader(text.splitlines())
                if row["assignment"] == "schedules"]
    assert {"'=2+5", "'@SUM(A1)", "ada,,,,0,0,0,50"} <= set(students)
    assert students.count("ada") == 1 and not [s for s in students if s[:1] in "=+-@"]


def test_nothing_a_link_points_to_is_copied_into_autograded_or_feedback(course):
    course, autograde = course
    for folder in ("autograded", "feedback"):
        kept = {path.name for path in (course / folder / "leaky" / "schedules").iterdir()}
        assert not kept & set(LINKS), (folder, kept)
    assert "Not copying" in autograde.stderr and "data.csv" in autograde.stderr
    with open(course / "gradebook.db", "rb") as handle:
        assert handle.read(16) == b"SQLite format 3\x00"  # the gradebook is still a gradebook


def test_only_the_course_s_own_feedback_and_nbgrader_s_files_reach_feedback(course):
    """zz handed in an `index.html`, a `02_cron_matches.html` for a notebook they did not
    submit, a page whose name holds terminal escapes and a text file: nbgrader copied them into
    feedback/, where release_feedback releases every page and a server serves them as the
    course's feedback. feedback/ now holds the generated page and nbgrader's own timestamp and
    secret (release_feedback reads them), and one escaped sentence of the log names what was
    left out; autograded/ keeps the student's files for the instructor."""
    course, _ = course
    folder = course / "feedback" / "zz" / "schedules"
    assert sorted(path.name for path in folder.iterdir()) == [
        f"{PARSE.notebook}.html", "submission_secret.txt", "timestamp.txt"]
    assert set(SPOOFS) <= {path.name for path in (course / "autograded" / "zz" / "schedules")
                           .iterdir()}
    log = (course / "feedback.log").read_text()
    said = [line for line in log.splitlines() if "Not copying" in line and "zz" in line]
    assert len(said) == 1, log[-3000:]
    assert said[0].endswith(
        "Not copying 4 files beside the notebooks of autograded/zz/schedules into "
        "feedback/zz/schedules: feedback holds only the pages generated from the notebooks, so "
        "that no file of a student's passes for the course's feedback; left out: "
        "\\x1b[2J\\x1b[31mFAKE: all students 0 points\\x1b[0m.html, 02_cron_matches.html, "
        "index.html, notes.txt"), said
    assert "\x1b" not in log


def test_a_timestamp_that_is_a_link_counts_as_none(course):
    course, autograde = course
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as book:
        assert book.find_submission("schedules", "bo").total_seconds_late == 0
    assert "Ignoring" in autograde.stderr and "timestamp.txt" in autograde.stderr


def test_markdown_a_student_wrote_reaches_feedback_and_formgrader_as_inert_text(course):
    """nbconvert leaves HTML in Markdown alone unless told to sanitize it; the course's
    nbgrader_config.py tells it, for the feedback pages and for Formgrader's own exporter."""
    course, _ = course
    page = (course / "feedback" / "ada" / "schedules" / f"{PARSE.notebook}.html").read_text()
    for shown in (page, formgrader_view(course)):
        assert "My notes" in shown and "<strong>in bold</strong>" in shown
        assert "&lt;script&gt;alert(document.cookie)" in shown  # shown as text
        assert "<script>alert(document.cookie)" not in shown
        assert not re.search(r"<[a-z][^>]*\bon[a-z]+\s*=", shown)  # no tag with a handler
        addresses = ["".join(c for c in html.unescape(value) if c > " ").lower()
                     for value in re.findall(r'(?:href|src)\s*=\s*"([^"]*)"', shown)]
        assert not [a for a in addresses if a.startswith(("javascript:", "vbscript:"))], addresses
        assert "https://example.com/cron" in addresses and "Open my chart" in shown


def formgrader_view(course: Path, student: str = "ada") -> str:
    done = subprocess.run(
        [sys.executable, "-c", FORMGRADER_VIEW, str(course / "autograded" / student
                                                     / "schedules" / f"{PARSE.notebook}.ipynb")],
        cwd=course, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


# What Formgrader's exporter makes of an autograded notebook, with the course's configuration
# (formgrader.py builds `HTMLExporter(config=self.config)` from the same nbgrader_config.py).
FORMGRADER_VIEW = """
import sys
from nbconvert.exporters import HTMLExporter
from traitlets.config.loader import PyFileConfigLoader
config = PyFileConfigLoader("nbgrader_config.py", path=".").load_config()
print(HTMLExporter(config=config).from_filename(sys.argv[1])[0])
"""


@pytest.mark.parametrize("path", sorted((REPOSITORY / "notebooks").glob("*/*.ipynb"))
                         + sorted((REPOSITORY / "solutions").glob("*/*.ipynb")),
                         ids=lambda path: f"{path.parent.parent.name}/{path.name}")
def test_the_course_s_own_markdown_holds_no_html_that_feedback_would_show_as_text(path):
    from autograder.nbgrader_autograde import TAG_START

    notebook = nbformat.read(path, as_version=4)
    assert not [cell.source[:80] for cell in notebook.cells if cell.cell_type == "markdown"
                and TAG_START.search(cell.source)]
