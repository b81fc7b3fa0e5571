"""A real class's week with `grade-batch`: submissions as they really arrive, deadlines,
overrides and gradebook hygiene, on a class generated in a temporary folder (issue 13).

One messy class is graded once through the command line (with a deadlines file and an
overrides file in the output folder); each test checks one promise of the instructor's
workflow (the README's For instructors and docs/class.md) against the files that batch wrote.
"""

from __future__ import annotations

import csv
import json
import os
import subprocess
from datetime import datetime, timedelta, timezone
from pathlib import Path

import fixtures
import pytest
from grader_cli import grade_batch

from autograder import batch, deadlines, overrides
from autograder.reference import REPOSITORY
from autograder.rubric import EXERCISES, exercise_for

PARSE = exercise_for("01_parse_cron_field")


def notebooks_of(*assignments: str) -> set[str]:
    return {e.notebook for e in EXERCISES if e.assignment in assignments}


def max_of(assignment: str) -> float:
    return sum(e.max_score for e in EXERCISES if e.assignment == assignment)
MATCHES = exercise_for("02_cron_matches")
BACKOFF = exercise_for("05_backoff_delays")
LATIN1 = os.fsdecode(b"zo\xeb")  # "zoë" in Latin-1, as a Windows zip stores it
DEADLINES = """\
[due]
schedules = 2026-03-01T23:59:00Z

[extensions.caps]
schedules = 2026-03-05T23:59:00Z

[late]
penalty_per = "day"
penalty_percent = 10
"""
OVERRIDES = """\
student,notebook,score,reason
flat,01_parse_cron_field,20,"graded by hand: the notebook was outside its assignment folder"
"""


def wrong(exercise, name: str):
    entry = fixtures.read_corpus_entry(
        REPOSITORY / "tests" / "corpus" / "wrong" / exercise.notebook / f"{name}.py")
    return fixtures.corpus_submission(entry)


def write(submitted: Path, relative: str, made) -> Path:
    """A file at submitted/relative: a notebook node, or text."""
    path = submitted / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(made, str):
        path.write_text(made)
    else:
        import nbformat

        nbformat.write(made, str(path))
    return path


def build_class(submitted: Path) -> None:
    honest, stub = fixtures.honest_submission(PARSE), fixtures.stub_submission(PARSE)
    write(submitted, "ada/schedules/01_parse_cron_field.ipynb", honest)
    write(submitted, "ada/schedules/02_cron_matches.ipynb", fixtures.honest_submission(MATCHES))
    write(submitted, "ada/schedules/timestamp.txt", "2026-03-02 10:00:00.000000 UTC\n")
    write(submitted, "ada/resilience/05_backoff_delays.ipynb",
          fixtures.honest_submission(BACKOFF))
    write(submitted, "flat/01_parse_cron_field.ipynb", honest)
    write(submitted, "instructions.ipynb", stub)  # the instructor's stray file
    write(submitted, ".late/schedules/01_parse_cron_field.ipynb", honest)
    write(submitted, "zoe/schedules/notebooks/schedules/01_parse_cron_field.ipynb", honest)
    write(submitted, "exports/schedules/01_parse_cron_field.py", "def parse_cron_field(): ...\n")
    write(submitted, "exports/schedules/01_parse_cron_field.html", "<html></html>\n")
    (submitted / "empty").mkdir(parents=True)
    write(submitted, "renamed/schedules/Untitled.ipynb", honest)
    write(submitted, "copies/schedules/01_parse_cron_field.ipynb", stub)
    write(submitted, "copies/schedules/01_parse_cron_field (1).ipynb", honest)
    write(submitted, "both/schedules/01_parse_cron_field.ipynb", honest)
    write(submitted, "both/schedules/01_parse_cron_field-Copy1.ipynb",
          wrong(PARSE, "exclusive_range_end"))
    write(submitted, "caps/Schedules/01_parse_cron_field.ipynb", honest)
    write(submitted, "caps/Schedules/timestamp.txt", "2026-03-02 10:00:00.000000 UTC\n")
    write(submitted, f"{LATIN1}/schedules/01_parse_cron_field.ipynb", honest)
    write(submitted, "summer/schedules/01_parse_cron_field.ipynb", honest)  # a zone it cannot
    write(submitted, "summer/schedules/timestamp.txt", "2026-03-04 10:00:00.000000 CEST\n")
    write(submitted, "accents/schedules/" + os.fsdecode(b"mon travail (r\xe9vis\xe9).ipynb"),
          honest)
    (submitted / "mallory").mkdir()
    (submitted / "mallory" / "schedules").symlink_to("../ada/schedules")
    (submitted / "linker" / "schedules").mkdir(parents=True)
    (submitted / "linker" / "schedules" / "01_parse_cron_field.ipynb").symlink_to(
        submitted / "ada" / "schedules" / "01_parse_cron_field.ipynb")
    (submitted / "hardlinker" / "schedules").mkdir(parents=True)
    os.link(submitted / "ada" / "schedules" / "02_cron_matches.ipynb",
            submitted / "hardlinker" / "schedules" / "02_cron_matches.ipynb")


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> tuple[Path, Path, subprocess.CompletedProcess]:
    root = tmp_path_factory.mktemp("real-class")
    submitted, out = root / "submitted", root / "grades"
    build_class(submitted)
    out.mkdir()
    (out / "deadlines.toml").write_text(DEADLINES)
    (out / "overrides.csv").write_text(OVERRIDES)
    done = grade_batch(submitted, out, "--jobs", "2")
    if done.returncode == 1 and "bubblewrap" in done.stderr:
        pytest.skip(f"the sandbox is not available here: {done.stderr.strip()[-300:]}")
    assert done.returncode == 0, done.stderr[-3000:]
    return submitted, out, done


def rows(out: Path, name: str = "grades.csv") -> list[dict[str, str]]:
    with open(out / name, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def row(out: Path, student: str, notebook: str) -> dict[str, str]:
    found = [r for r in rows(out) if r["student"] == student and r["notebook"] == notebook]
    assert len(found) == 1, f"{student} {notebook}: {found}"
    return found[0]


def not_graded(out: Path, student: str) -> list[dict[str, str]]:
    return [r for r in rows(out, "not-graded.csv") if r["student"] == student]


# -- submissions as they really arrive ---------------------------------------------------

@pytest.mark.parametrize("student, where, reason", [
    ("flat", "flat/01_parse_cron_field.ipynb", "directly in the student's folder"),
    ("zoe", "zoe/schedules/notebooks/schedules/01_parse_cron_field.ipynb", "too deep"),
    ("exports", "exports/schedules/01_parse_cron_field.py", "Python script export"),
    ("exports", "exports/schedules/01_parse_cron_field.html", "HTML export"),
    ("empty", "", "is empty"),
    ("", "instructions.ipynb", "not a student's folder"),
    ("", ".late/", "a hidden folder"),
], ids=["flat", "extra-level", "py-export", "html-export", "empty-folder", "top-level-file",
        "hidden-folder"])
def test_nothing_is_silently_skipped(graded, student, where, reason):
    _, out, done = graded
    listed = [r for r in not_graded(out, student) if r["file"] == where]
    assert listed and reason in listed[0]["reason"], not_graded(out, student)
    assert where in done.stderr and "not-graded.csv" in done.stderr
    if not student:
        return
    parse = row(out, student, PARSE.notebook)
    if student != "flat":  # flat has an override (tested below)
        assert (parse["score"], parse["max_score"]) == ("0", "25")
    assert reason in parse["note"] and parse["note"].startswith("not submitted")
    if where.startswith("exports/"):  # an export is noted on the row of its own notebook only
        assert where.rsplit("/", 1)[1] not in row(out, student, MATCHES.notebook)["note"]
    assert {r["notebook"] for r in rows(out) if r["student"] == student} == notebooks_of(
        "schedules", "resilience")


def test_renamed_and_duplicated_notebooks_count_once_under_the_exercise_name(graded):
    _, out, done = graded
    assert row(out, "renamed", PARSE.notebook)["score"] == "25"
    assert not [r for r in rows(out) if r["notebook"] in ("Untitled", "01_parse_cron_field (1)")]
    # the canonical file is the untouched release and a copy has work: the copy counts
    copies = row(out, "copies", PARSE.notebook)
    assert copies["score"] == "25"
    assert "01_parse_cron_field (1).ipynb counted" in copies["note"]
    assert "[" in done.stderr and "copies/schedules/01_parse_cron_field (1).ipynb  25/25" \
        in done.stderr
    assert "copies/schedules/01_parse_cron_field.ipynb  " not in done.stderr  # never graded
    # both have work: the file named like the exercise counts, not the buggy copy
    both = row(out, "both", PARSE.notebook)
    assert both["score"] == "25" and "named exactly like the exercise" in both["note"]
    report = (out / "students" / "both" / "report.md").read_text()
    assert "both/schedules/01_parse_cron_field.ipynb counted" in report
    assert "01_parse_cron_field-Copy1.ipynb" in report


def test_assignment_folders_match_whatever_their_case(graded):
    _, out, _ = graded
    caps = row(out, "caps", PARSE.notebook)
    assert (caps["assignment"], caps["score"]) == ("schedules", "25")
    caps = out / "students" / "caps" / "schedules" / "results.json"
    assert json.loads(caps.read_text())["score"] == 25


def test_a_folder_name_that_is_not_utf8_is_graded_under_a_readable_name(graded):
    _, out, _ = graded
    zoe = row(out, "zoë", PARSE.notebook)
    assert zoe["score"] == "25"
    assert [r for r in not_graded(out, "zoë") if "not UTF-8" in r["reason"]]
    assert row(out, "accents", PARSE.notebook)["score"] == "25"  # a Latin-1 file name
    results = json.loads((out / "students" / "accents" / "schedules" / "results.json").read_text())
    assert "mon travail (révisé).ipynb" in (out / "students" / "accents" / "report.md").read_text()
    assert results["score"] == 25


def test_a_symbolic_link_never_grades_a_classmates_work(graded):
    _, out, _ = graded
    for student in ("mallory", "linker"):
        assert row(out, student, PARSE.notebook)["score"] == "0"
        assert row(out, student, MATCHES.notebook)["score"] == "0"
        assert [r for r in not_graded(out, student) if "symbolic link" in r["reason"]]
    assert row(out, "ada", PARSE.notebook)["score"] != "0"


def test_a_file_with_several_hard_links_is_flagged_for_both_students(graded):
    _, out, _ = graded
    for student in ("ada", "hardlinker"):
        assert [r for r in not_graded(out, student)
                if r["notebook"] == MATCHES.notebook and "hard links" in r["reason"]]
        assert "hard links" in row(out, student, MATCHES.notebook)["note"]


def test_results_json_is_one_file_per_assignment(graded):
    _, out, _ = graded
    schedules = json.loads((out / "students" / "ada" / "schedules" / "results.json").read_text())
    resilience = json.loads((out / "students" / "ada" / "resilience" / "results.json").read_text())
    assert {t["name"].split(" · ")[0] for t in resilience["tests"]} == notebooks_of("resilience")
    assert resilience["max_score"] == max_of("resilience")
    assert schedules["max_score"] == max_of("schedules")
    assert not (out / "students" / "ada" / "results.json").exists()


def test_one_assignment_only_with_its_own_maximum(graded, tmp_path):
    submitted, _, _ = graded
    out = tmp_path / "resilience-only"
    done = grade_batch(submitted, out, "--assignment", "Resilience")
    assert done.returncode == 0, done.stderr[-2000:]
    found = rows(out)
    assert {r["notebook"] for r in found} == notebooks_of("resilience")
    assert sum(float(r["max_score"]) for r in found if r["student"] == "ada") == \
        max_of("resilience")
    table = subprocess.run([*batch_grader(), "autograder.gradebook", str(out / "grades.csv")],
                           capture_output=True, text=True, cwd=REPOSITORY).stdout
    tops = [f"{e.max_score:g}" for e in EXERCISES if e.assignment == "resilience"]
    assert table.splitlines()[1].split() == ["(max)", *tops, f"{max_of('resilience'):g}"]
    unknown = grade_batch(submitted, tmp_path / "x", "--assignment", "homework")
    assert unknown.returncode == 2 and "expected one of schedules" in unknown.stderr


def batch_grader() -> list[str]:
    import sys

    return [sys.executable, "-m"]


def test_pointing_at_one_students_folder_says_what_layout_was_expected(graded, tmp_path):
    submitted, _, _ = graded
    done = grade_batch(submitted / "ada", tmp_path / "out")
    assert done.returncode == 2
    assert "looks like one student's folder" in done.stderr
    assert "SUBMITTED/<student>/<assignment>/<notebook>.ipynb" in done.stderr
    assert "Traceback" not in done.stderr
    folder = grade_batch(submitted / "ada" / "schedules", tmp_path / "out")
    assert folder.returncode == 2 and "holds notebooks directly" in folder.stderr
    assert f"python -m autograder grade {submitted / 'ada' / 'schedules'}/*.ipynb" \
        in folder.stderr


@pytest.mark.fast
def test_a_class_of_200_is_found_without_reading_any_notebook(tmp_path, monkeypatch):
    from autograder import discovery
    from autograder.rubric import EXERCISES

    submitted = tmp_path / "submitted"
    for number in range(200):
        for exercise in EXERCISES:
            path = submitted / f"student{number:03d}" / exercise.path
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("{}")  # named like the exercise: graded, so read only then
    read: list[Path] = []
    monkeypatch.setattr(discovery, "_read", lambda path: read.append(path) or None)
    found = discovery.discover(submitted)
    assert not read, f"discovery read {len(read)} notebooks, for example {read[:3]}"
    assert len(found.submissions) == 200 * len(EXERCISES) and not found.skipped
    assert found.assignments == ("schedules", "resilience", "capstone")


@pytest.mark.fast
def test_copies_of_a_notebook_cost_discovery_one_document_at_a_time(tmp_path):
    """Each copy of a notebook not named like its exercise is read to recognise it, and all
    compete for the exercise; discovery kept every copy's document (each with up to 1 MiB of
    code) until the whole class was found: 100 copies of a 1.2 MB notebook took its memory to
    134 MiB, so 2,000, as many files as a student's folder may hold, to about 2.5 GiB. It
    keeps only whether each copy has work."""
    import tracemalloc

    import nbformat

    from autograder import discovery

    copy = fixtures.stub_submission(PARSE)
    copy.cells.append(nbformat.v4.new_code_cell("x = [" + "1," * 300_000 + "]"))  # 600 KB
    for number in range(30):
        write(tmp_path / "many", f"ada/schedules/homework {number}.ipynb", copy)
    write(tmp_path / "one", "ada/schedules/homework 0.ipynb", copy)
    discovery.discover(tmp_path / "one")  # what is read once per process (the releases)
    tracemalloc.start()
    try:
        found = discovery.discover(tmp_path / "many")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert [s.path.name for s in found.submissions] == ["homework 0.ipynb"]
    assert len(found.skipped) == 29
    assert peak < 8 * 2**20, f"{peak / 2**20:.1f} MiB"  # 30 documents: 18 MiB of code alone


@pytest.mark.fast
def test_discovery_reads_at_most_its_budget_of_each_student_s_notebooks(tmp_path, monkeypatch):
    """A notebook not named like its exercise is read to recognise it; one student's folder of
    2,000 such notebooks of 20 MiB (tiny as a zip) would cost about 2.4 s of CPU each before
    grading began. Discovery reads at most MAX_READ_BYTES of each student's notebooks: the
    rest is listed as not read, with what to do, and a classmate's budget is their own."""
    from autograder import discovery

    copy = fixtures.honest_submission(PARSE)
    write(tmp_path, "ada/schedules/mine 0.ipynb", copy)
    size = (tmp_path / "ada/schedules/mine 0.ipynb").stat().st_size
    for number in range(1, 5):
        write(tmp_path, f"ada/schedules/mine {number}.ipynb", copy)
    for number in range(2):
        write(tmp_path, f"bo/schedules/mine {number}.ipynb", copy)
    monkeypatch.setattr(discovery, "MAX_READ_BYTES", 2 * size + size // 2)
    real, read = discovery._read, []
    monkeypatch.setattr(discovery, "_read", lambda path: read.append(path) or real(path))
    found = discovery.discover(tmp_path)
    assert sorted(path.name for path in read if "ada" in path.parts) == ["mine 0.ipynb",
                                                                         "mine 1.ipynb"]
    assert sorted(path.name for path in read if "bo" in path.parts) == ["mine 0.ipynb",
                                                                        "mine 1.ipynb"]
    assert [(s.student, s.path.name) for s in found.submissions] == [("ada", "mine 0.ipynb"),
                                                                     ("bo", "mine 0.ipynb")]
    unread = [s for s in found.skipped if s.reason.startswith("not read:")]
    assert sorted(s.file for s in unread) == [f"ada/schedules/mine {n}.ipynb" for n in (2, 3, 4)]
    assert "name it like its exercise (01_parse_cron_field.ipynb)" in unread[0].reason


@pytest.mark.fast
def test_a_gradescope_upload_is_read_at_most_to_the_same_budget(tmp_path, monkeypatch):
    """Gradescope's upload path read every notebook not named like its exercise: 2,000 of 20
    MiB (tiny as a zip) would cost its container about an hour of CPU before grading began.
    It reads at most MAX_READ_BYTES of the upload, as grade-batch does of a student's folder."""
    from autograder import discovery

    copy = fixtures.honest_submission(PARSE)
    for number in range(5):
        write(tmp_path, f"deep/mine {number}.ipynb", copy)
    size = (tmp_path / "deep/mine 0.ipynb").stat().st_size
    monkeypatch.setattr(discovery, "MAX_READ_BYTES", 2 * size + size // 2)
    real, read = discovery._read, []
    monkeypatch.setattr(discovery, "_read", lambda path: read.append(path) or real(path))
    found = discovery.discover_upload(tmp_path, "schedules")
    assert sorted(path.name for path in read) == ["mine 0.ipynb", "mine 1.ipynb"]
    assert [s.path.name for s in found.submissions] == ["mine 0.ipynb"]
    unread = [s for s in found.skipped if s.reason.startswith("not read:")]
    assert sorted(s.file for s in unread) == [f"deep/mine {n}.ipynb" for n in (2, 3, 4)]
    assert "of your notebooks; name it like its exercise" in unread[0].reason


@pytest.mark.fast
def test_a_file_too_large_to_be_a_notebook_takes_nothing_from_the_read_budget(tmp_path,
                                                                              monkeypatch):
    """Such a file is refused before a byte of it is read (`lstat`), so the notebooks beside it
    are still read to recognise them."""
    from autograder import discovery
    from autograder.notebook import MAX_NOTEBOOK_BYTES

    write(tmp_path, "ada/schedules/mine.ipynb", fixtures.honest_submission(PARSE))
    size = (tmp_path / "ada/schedules/mine.ipynb").stat().st_size
    with open(tmp_path / "ada/schedules/a sparse file.ipynb", "wb") as sparse:
        sparse.truncate(MAX_NOTEBOOK_BYTES + 1)
    monkeypatch.setattr(discovery, "MAX_READ_BYTES", MAX_NOTEBOOK_BYTES + size)
    found = discovery.discover(tmp_path)
    assert [s.path.name for s in found.submissions] == ["mine.ipynb"]
    assert not [s for s in found.skipped if s.reason.startswith("not read:")]


@pytest.mark.fast
def test_a_hidden_student_folder_is_listed_as_not_graded(tmp_path):
    from autograder import discovery

    submitted = tmp_path / "submitted"
    for student in ("ada", ".bo"):
        write(submitted, f"{student}/schedules/01_parse_cron_field.ipynb", "{}")
    write(submitted, ".ipynb_checkpoints/01_parse_cron_field-checkpoint.ipynb", "{}")
    write(submitted, ".gitignore", "*\n")
    found = discovery.discover(submitted)
    assert [s.student for s in found.submissions] == ["ada"]
    assert [(s.file, s.reason.split(";")[0]) for s in found.skipped] == [
        (".bo/", "a hidden folder (its name starts with '.'), not read as a student's")]


@pytest.mark.fast
def test_a_student_folder_named_like_what_systems_leave_behind_is_graded_or_listed(tmp_path):
    """Student folders named `__pycache__` and `timestamp.txt` hold notebooks: they are
    graded like any other. A Mac zip's `__MACOSX/` (resource forks only) and a stray
    `Thumbs.db` are listed as not graded. Before, all four were passed over in silence."""
    from autograder import discovery

    submitted = tmp_path / "submitted"
    for student in ("ada", "__pycache__", "timestamp.txt"):
        write(submitted, f"{student}/schedules/01_parse_cron_field.ipynb", "{}")
    write(submitted, "__MACOSX/ada/schedules/._01_parse_cron_field.ipynb", "\0")
    write(submitted, "Thumbs.db", "\0")
    found = discovery.discover(submitted)
    assert [s.student for s in found.submissions] == ["__pycache__", "ada", "timestamp.txt"]
    assert found.students == ["__pycache__", "ada", "timestamp.txt"]
    assert [(s.file, s.reason.split(";")[0].split(",")[0]) for s in found.skipped] == [
        ("__MACOSX/", "a folder that operating systems and Jupyter leave behind"),
        ("Thumbs.db", "a file directly in submitted/")]


# -- deadlines ---------------------------------------------------------------------------

def test_late_work_loses_the_policys_penalty_and_extensions_count(graded):
    _, out, _ = graded
    ada = row(out, "ada", PARSE.notebook)  # 10 h after the due date: one started day, 10%
    assert ada["submitted_at"] == "2026-03-02T10:00:00+00:00"
    assert (ada["late_by"], ada["penalty"], ada["score"]) == ("10.02", "2.5", "22.5")
    caps = row(out, "caps", PARSE.notebook)  # the same time, within caps's extension
    assert (caps["late_by"], caps["penalty"], caps["score"]) == ("", "", "25")
    assert "on time with the extension to 2026-03-05T23:59+00:00" in caps["note"]
    renamed = row(out, "renamed", PARSE.notebook)  # no timestamp.txt: never late
    assert (renamed["submitted_at"], renamed["penalty"]) == ("", "")
    assert "no timestamp.txt" in renamed["note"]
    # A time this grader cannot place is no time, but it is not passed over in silence.
    summer = row(out, "summer", PARSE.notebook)
    assert (summer["submitted_at"], summer["penalty"], summer["score"]) == ("", "", "25")
    assert "'CEST' is a time-zone abbreviation" in summer["note"].replace('"', "'")
    assert "check it, so it counts as on time" in summer["note"]
    assert "CEST" in summer["flags"], summer
    assert [r["notebook"] for r in rows(out, "flags.csv")
            if r["student"] == "summer" and "CEST" in "".join(r.values())] == [PARSE.notebook]
    assert "late penalty 10%" in (out / "students" / "ada" / "report.md").read_text()


@pytest.mark.fast
def test_late_policies_none_per_hour_and_zero_after_a_cutoff(tmp_path):
    due = datetime(2026, 3, 1, 12, tzinfo=timezone.utc)
    after = {hours: due + timedelta(hours=hours) for hours in (0.5, 5, 30)}
    none = deadlines.Policy(due={"schedules": due})
    assert none.judge("a", "schedules", after[30]).fraction == 0
    path = tmp_path / "deadlines.toml"
    path.write_text('[due]\nschedules = "2026-03-01T12:00:00+00:00"\n[late]\n'
                    'penalty_per = "hour"\npenalty_percent = 5\nzero_after_hours = 24\n'
                    "grace_minutes = 40\n")
    policy = deadlines.load(path)
    assert policy.judge("a", "schedules", after[0.5]).fraction == 0  # within the grace
    assert policy.judge("a", "schedules", after[5]).fraction == pytest.approx(0.25)
    assert policy.judge("a", "schedules", after[30]).fraction == 1.0
    assert deadlines.load(None).judge("a", "schedules", after[30]).fraction == 0
    path.write_text("[due]\nschedules = 2026-03-01T12:00:00\n")
    with pytest.raises(deadlines.DeadlineError, match="time-zone offset"):
        deadlines.load(path)


# -- overrides ---------------------------------------------------------------------------

def test_overrides_apply_on_every_run_and_show_in_gradebook_and_report(graded):
    submitted, out, _ = graded
    flat = row(out, "flat", PARSE.notebook)
    assert flat["score"] == "20" and flat["override"].startswith("graded by hand")
    flat = (out / "students" / "flat" / "report.md").read_text()
    assert "score set to 20 by the instructor" in flat
    again = grade_batch(submitted, out, "--force", "--jobs", "2")
    assert again.returncode == 0, again.stderr[-2000:]
    assert row(out, "flat", PARSE.notebook)["score"] == "20"
    table = subprocess.run([*batch_grader(), "autograder.gradebook", str(out / "grades.csv")],
                           capture_output=True, text=True, cwd=REPOSITORY).stdout
    assert any(line.startswith("flat ") and "20*" in line for line in table.splitlines())


@pytest.mark.fast
def test_an_override_that_cannot_be_used_is_a_warning_not_a_silent_change(tmp_path):
    path = tmp_path / "overrides.csv"
    path.write_text("student,notebook,score,reason\nada,01_parse_cron_field,99,typo\n"
                    "ada,99_bonus,5,extra\nada,02_cron_matches,5,\n")
    found, warnings = overrides.load(path)
    assert found == {} and len(warnings) == 3
    assert "outside 0 to 25" in warnings[0] and "give a reason" in warnings[2]


@pytest.mark.fast
def test_an_override_for_no_student_of_the_class_is_a_warning_and_grades_csv_names_work():
    """An override keyed by a name as grades.csv shows it (`'-ada`) applies to that student;
    one for a name that is no student's (`cy` beside `Cy`), or for a notebook the run does not
    grade, is a warning instead of a change nobody sees."""
    import io

    from autograder import batch, discovery

    found = discovery.Discovery(students=["-ada", "Cy", "bo"], assignments=("schedules",),
                                submissions=[])
    given = {(student, notebook): overrides.Override(student, notebook, 10.0, "by hand")
             for student, notebook in (("'-ada", PARSE.notebook), ("cy", PARSE.notebook),
                                       ("bo", "05_backoff_delays"), ("bo", PARSE.notebook))}
    said = io.StringIO()
    matched = batch.match_overrides(found, given, said)
    assert sorted(matched) == [("-ada", PARSE.notebook), ("bo", PARSE.notebook)]
    assert matched[("-ada", PARSE.notebook)].student == "-ada"
    warnings = said.getvalue().splitlines()
    assert len(warnings) == 2, warnings
    assert "'cy', who is not a student of this class" in warnings[0]
    assert "05_backoff_delays, which this run does not grade" in warnings[1]


@pytest.mark.fast
def test_an_override_that_names_one_folder_and_how_grades_csv_shows_another_is_a_warning():
    """A student names their folder `'-ada`, which is how grades.csv shows the folder -ada (and
    `a\\\\b`, how it shows `a\\b`): an override or an extension copied from grades.csv for
    -ada went to that folder's student, without a word. Such a name goes to neither student,
    with a warning that gives each one's unambiguous form."""
    import io

    from autograder import batch, deadlines, discovery

    found = discovery.Discovery(students=["-ada", "'-ada", "a\\b", "a\\\\b", "bo"],
                                assignments=("schedules",), submissions=[])
    given = {(student, PARSE.notebook): overrides.Override(student, PARSE.notebook, 20.0, "hand")
             for student in ("'-ada", "a\\\\b", "''-ada", "-ada", "bo")}
    said = io.StringIO()
    matched = batch.match_overrides(found, given, said)
    assert sorted(student for student, _ in matched) == ["'-ada", "-ada", "bo"], matched
    assert matched[("'-ada", PARSE.notebook)].student == "'-ada"  # given as ''-ada
    warnings = said.getvalue().splitlines()
    assert len(warnings) == 2, warnings
    assert "names \"'-ada\", which is a student's folder name and also how grades.csv shows " \
        "the folder '-ada'" in warnings[0] and "\"''-ada\" for the first" in warnings[0]
    later = datetime(2026, 3, 9, tzinfo=timezone.utc)
    policy = deadlines.Policy(extensions={"'-ada": {"schedules": later}})
    assert batch.match_extensions(found, policy, said).extensions == {}


# -- where grades go ---------------------------------------------------------------------

ROSTER = """\
student,lms_id,name,sis_user_id,sis_login_id,section
ada,1001,Ada Lovelace,S-1,ada@example.edu,Monday
empty,1002,Emmy Empty,S-2,emmy@example.edu,Monday
newcomer,1003,Nell Newcomer,S-3,nell@example.edu,Tuesday
"""


def export(out: Path, *args: str) -> tuple[list[list[str]], subprocess.CompletedProcess]:
    target = out.parent / "export.csv"
    done = subprocess.run([*batch_grader(), "autograder", "export", str(out), *args,
                           "--out", str(target)], capture_output=True, text=True,
                          cwd=REPOSITORY)
    assert done.returncode == 0, done.stderr
    with open(target, newline="", encoding="utf-8") as handle:
        return list(csv.reader(handle)), done


def test_canvas_export_one_row_per_roster_student_one_column_per_assignment(graded):
    _, out, _ = graded
    roster = out.parent / "roster.csv"
    roster.write_text(ROSTER)
    table, done = export(out, "--format", "canvas", "--roster", str(roster),
                         "--missing", "blank", "--title", "schedules=Lab 1: schedules (101)")
    assert table[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section",
                        "Lab 1: schedules (101)", "resilience"]
    assert table[1] == ["Points Possible", "", "", "", "", f"{max_of('schedules'):g}",
                        f"{max_of('resilience'):g}"]
    by_id = {line[1]: line for line in table[2:]}
    assert by_id["1001"] == ["Ada Lovelace", "1001", "S-1", "ada@example.edu", "Monday",
                             "45", "25"]  # late penalties included
    assert by_id["1002"][5:] == ["", ""] and by_id["1003"][5:] == ["", ""]
    assert "warning: 'renamed' is in the gradebook but not in the roster" in done.stderr
    zero, _ = export(out, "--format", "canvas", "--roster", str(roster))
    assert {line[1]: line[5:] for line in zero[2:]}["1002"] == ["0", "0"]


def test_plain_csv_export_lists_every_graded_student_with_a_total(graded):
    _, out, _ = graded
    table, _ = export(out, "--format", "csv")
    assert table[0] == ["student", "lms_id", "schedules", "resilience", "total"]
    rows = {line[0]: line for line in table[1:]}
    assert rows["ada"] == ["ada", "", "45", "25", "70"]
    assert rows["flat"][2:] == ["20", "0", "20"]  # the override counts as submitted
    assert rows["zoë"][2:] == ["25", "0", "25"]


@pytest.mark.fast
def test_export_finds_students_whose_ids_the_gradebook_shows_escaped(tmp_path):
    """grades.csv shows an id that starts like a formula with a ' and control characters as
    escapes: the roster's own ids still find their scores, and no roster student is
    reported missing from the gradebook."""
    from autograder import export, report

    ids = ["ada", "-ada", "@bob", "=1+1", "eve\x1b[2J", "tab\tbed"]
    columns = ["student", "assignment", "notebook", "score", "max_score", "note", "override"]
    rows = [[student, "schedules", "01_parse_cron_field", "25", "25", "", ""]
            for student in ids]
    report.write_atomic(tmp_path / "grades.csv", report.csv_table(columns, rows))
    roster = tmp_path / "roster.csv"
    with open(roster, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["student", "lms_id", "name"])
        writer.writerows([student, str(100 + index), f"Student {index}"]
                         for index, student in enumerate(ids))
    for fmt, score_column in (("csv", 2), ("canvas", 5)):
        text, warnings = export.export(tmp_path, fmt, roster)
        table = list(csv.reader(text.splitlines()))[1 if fmt == "csv" else 2:]
        assert [line[score_column] for line in table] == ["25"] * len(ids), table
        assert warnings == []



@pytest.mark.fast
def test_an_export_without_a_roster_shows_each_student_as_grades_csv_does(tmp_path):
    """Without a roster the student column is grades.csv's own cell: `'-ada` (a spreadsheet
    shows -ada), never `''-ada` (which it would show as '-ada, another student's name); a
    cell that starts like a formula in a hand-edited gradebook still gets its '."""
    from autograder import export, report

    columns = ["student", "assignment", "notebook", "score", "max_score", "note", "override"]
    ids = ["ada", "-ada", "'-ada", "=1+1", "tab\tbed"]
    rows = [[student, "schedules", "01_parse_cron_field", "25", "25", "", ""]
            for student in ids]
    report.write_atomic(tmp_path / "grades.csv", report.csv_table(columns, rows))
    with open(tmp_path / "grades.csv", encoding="utf-8") as handle:
        cells = [row["student"] for row in csv.DictReader(handle)]
    assert cells == ["ada", "'-ada", "''-ada", "'=1+1", "tab\\tbed"]
    text, _ = export.export(tmp_path, "csv")
    assert [line[0] for line in list(csv.reader(text.splitlines()))[1:]] == sorted(cells)
    edited = (tmp_path / "grades.csv").read_text(encoding="utf-8").replace("'=1+1", "=1+1")
    (tmp_path / "grades.csv").write_text(edited, encoding="utf-8")
    text, _ = export.export(tmp_path, "csv")
    assert "'=1+1" in [line[0] for line in csv.reader(text.splitlines())]


def test_a_folder_named_not_submitted_keeps_its_points_in_the_export(tmp_path):
    """A student whose folder is named `not submitted` and who handed in a copy of a notebook
    beside a stray file: the note of the graded row starts with the folder name, and the
    export took the 25 points earned for nothing submitted (0, or blank with --missing blank)."""
    submitted, out = tmp_path / "submitted", tmp_path / "grades"
    for student in ("ada", "not submitted"):
        fixtures.place(submitted, student, PARSE, fixtures.honest_submission(PARSE),
                       "Untitled.ipynb")
    (submitted / "not submitted" / "schedules" / "notes.txt").write_text("draft\n")
    done = grade_batch(submitted, out, "--sandbox", "off")
    assert done.returncode == 0, done.stderr[-2000:]
    table, _ = export(out, "--format", "csv", "--missing", "blank")
    assert {line[0]: line[2] for line in table[1:]} == {"ada": "25", "not submitted": "25"}


NFD, NFC = "Jose\u0301", "Jos\u00e9"  # `José` as a zip made on a Mac holds it, and as typed


def exported(folder: Path, ids: list[str], roster_ids: list[str],
             fmt: str = "csv") -> tuple[dict[str, list[str]], list[str]]:
    """Export a gradebook of `ids` (each with its own score: 10, 11, ...) against a roster of
    `roster_ids` (lms_id 100, 101, ...): the rows by lms_id (as scores) and the messages."""
    from autograder import export, report

    columns = ["student", "assignment", "notebook", "score", "max_score", "note", "override"]
    rows = [[student, "schedules", "01_parse_cron_field", str(10 + index), "25", "", ""]
            for index, student in enumerate(ids)]
    report.write_atomic(folder / "grades.csv", report.csv_table(columns, rows))
    roster = folder / "roster.csv"
    with open(roster, "w", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerows([["student", "lms_id"]] + [
            [student, str(100 + index)] for index, student in enumerate(roster_ids)])
    text, messages = export.export(folder, fmt, roster, missing="blank")
    table = list(csv.reader(text.splitlines()))[1:]
    return {line[1]: line for line in table}, messages


@pytest.mark.fast
def test_a_roster_name_in_another_unicode_normal_form_finds_that_student_with_a_note(tmp_path):
    """The class was zipped on a Mac (`Jose` + U+0301); the LMS's class list has `José` as
    one letter. The two look the same, so "in the gradebook but not in the roster" told
    nobody why: the roster's row gets that student's points, and a note shows both names in
    code points. A name that starts like a formula finds its student the same way and stays
    quoted in the export."""
    rows, messages = exported(tmp_path, [NFD, f"-{NFD}", "bo"], [NFC, f"-{NFC}", "bo"])
    assert [rows[lms][0:3] for lms in ("100", "101", "102")] == [
        [NFC, "100", "10"], [f"'-{NFC}", "101", "11"], ["bo", "102", "12"]]
    assert messages == [
        f"note: the roster names '{NFC}' (Jos\\u00e9), which is the student '{NFD}' "
        "(Jose\\u0301) in another Unicode normal form (the same text, its accents composed "
        "otherwise); applied to that student",
        f"note: the roster names '-{NFC}' (-Jos\\u00e9), which is the student \"'-{NFD}\" "
        "('-Jose\\u0301) in another Unicode normal form (the same text, its accents "
        "composed otherwise); applied to that student"]


@pytest.mark.fast
def test_an_exact_roster_name_wins_and_one_that_fits_several_students_goes_to_none(tmp_path):
    """`ệ` composed (U+1EC7) and decomposed (e U+0323 U+0302) are both students: each of
    those roster names gets its own student's points, `'-ada` (as grades.csv shows -ada) gets
    -ada's, and a third spelling of `ệ` (U+00EA U+0323) gets none, with a warning that tells
    the two apart."""
    composed, decomposed, third = "\u1ec7", "e\u0323\u0302", "\u00ea\u0323"
    rows, messages = exported(tmp_path, [composed, decomposed, "-ada"],
                              [decomposed, composed, "'-ada", third])
    assert [rows[lms][2] for lms in ("100", "101", "102", "103")] == ["11", "10", "12", ""]
    assert messages == [
        f"warning: the roster names '{third}' (\\u00ea\\u0323), which is the same text as "
        f"each of the students '{decomposed}' (e\\u0323\\u0302), '{composed}' (\\u1ec7) in "
        "other Unicode normal forms; its row gets no points: copy the name of the one you "
        "mean from grades.csv"]


@pytest.mark.fast
def test_case_and_letter_forms_are_never_matched_but_the_warning_names_the_roster_s_name(
        tmp_path):
    """`Ada` in the roster for the gradebook's ada, fullwidth `ａｄａ`, or `аda` with a
    Cyrillic `а`, may be another student: never matched, and the warning that ada is not in
    the roster names them, in code points where a terminal shows names alike. Nothing a name
    holds reaches it raw."""
    wide, cyrillic = "\uff41\uff44\uff41", "\u0430da"
    rows, messages = exported(tmp_path, ["ada", "eve\x1b[2J"],
                              ["Ada", wide, cyrillic, "EVE\x1b[2J"], fmt="canvas")
    assert [rows[lms][5] for lms in ("100", "101", "102", "103")] == ["", "", "", ""]
    hint = ("(a name that differs in case, in a letter's form or in a letter's script may be "
            "another student's: write the folder name exactly)")
    assert messages == [
        "warning: 'ada' is in the gradebook but not in the roster; left out; it reads like "
        f"the roster's 'Ada', the roster's '{cyrillic}' (\\u0430da), the roster's "
        f"'\uff41\uff44\uff41' (\\uff41\\uff44\\uff41) {hint}",
        "warning: 'eve\\e[2J' (eve\\\\e[2J) is in the gradebook but not in the roster; left "
        f"out; it reads like the roster's 'EVE\\e[2J' (EVE\\e[2J) {hint}"]


@pytest.mark.fast
def test_a_roster_that_names_one_student_two_ways_or_two_students_one_way_is_a_warning(
        tmp_path):
    """Two roster rows, `José` typed and `José` copied from grades.csv, reach one student:
    both LMS rows would get that student's points. And `'-ada`, when both -ada and a folder
    named '-ada are students, is how grades.csv shows the one and the other's folder name:
    it goes to neither."""
    rows, messages = exported(tmp_path, [NFD, "-ada", "'-ada"], [NFC, NFD, "'-ada"])
    assert [rows[lms][2] for lms in ("100", "101", "102")] == ["10", "10", ""]
    assert messages[0].startswith(f"note: the roster names '{NFC}' (Jos\\u00e9)")
    assert messages[1] == (
        "warning: the roster names \"'-ada\", which is a student's folder name and also how "
        "grades.csv shows another student; its row gets no points: write \"''-ada\" for the "
        "first or the second's folder name")
    assert messages[2] == (
        f"warning: the roster names the student '{NFD}' (Jose\\u0301) in 2 ways ('{NFD}' "
        f"(Jose\\u0301), '{NFC}' (Jos\\u00e9)): each row gets the same points; fix the roster")
    assert [m for m in messages if "not in the roster" in m] == [
        "warning: \"''-ada\" is in the gradebook but not in the roster; left out; it reads "
        "like the roster's \"'-ada\" (a name that differs in case, in a letter's form or in "
        "a letter's script may be another student's: write the folder name exactly)",
        "warning: \"'-ada\" is in the gradebook but not in the roster; left out; it reads "
        "like the roster's \"'-ada\" (a name that differs in case, in a letter's form or in "
        "a letter's script may be another student's: write the folder name exactly)"]


# -- gradebook hygiene -------------------------------------------------------------------

@pytest.mark.fast
def test_git_ignores_gradebooks_and_make_clean_keeps_submitted():
    ignored = subprocess.run(["git", "check-ignore", "grades/grades.csv", "grades.csv",
                              "submitted/ada/schedules/x.ipynb"], cwd=REPOSITORY,
                             capture_output=True, text=True).stdout.split()
    assert ignored == ["grades/grades.csv", "grades.csv", "submitted/ada/schedules/x.ipynb"]
    dry = subprocess.run(["make", "-n", "clean"], cwd=REPOSITORY, capture_output=True,
                         text=True, env={**os.environ, "MAKEFLAGS": ""})
    assert dry.returncode == 0 and "rm " in dry.stdout
    assert "submitted" not in dry.stdout and "grades" not in dry.stdout


@pytest.mark.fast
def test_the_progress_line_never_cuts_a_word():
    text = ("the notebook's code ended the grading process (exit status 0) before every "
            "test had run; the missing tests count as failed")
    short = batch.progress_note(text, width=70)
    kept = short.removesuffix(" ... (see the report)")
    assert short.endswith("(see the report)") and text.startswith(kept)
    assert text[len(kept)] == " " and len(kept) <= 70
    assert batch.progress_note("short and sweet") == "short and sweet"
