"""One file never stops the batch, and nothing a submission names or raises lands unescaped.

A small class graded with `python -m autograder grade-batch --sandbox=required`, twice (the
second run reads every result back from the cache), holds:

- `ada`, honest; `grades.csv`, an honest student whose folder is named like the gradebook;
- `long`, an honest notebook whose file name is 241 bytes long (legal on Linux);
- `=1+1`, an honest notebook whose name holds a newline that forges a gradebook row and a
  spreadsheet formula;
- `eve` (tests/corpus/hostile/unencodable_error.py): exceptions whose class name and message
  hold lone surrogates, NUL, terminal escapes, Markdown headings and HTML;
- `mallory` (tests/corpus/hostile/forged_channel_labels.py): writes forged records to the
  results channel's descriptor, which the process running notebook code no longer holds (only
  the worker's relay does), so none of them reaches the grader;
- `sym`, a notebook that is a symbolic link to ada's; `hard`, a hard link to `linked`'s
  notebook; `huge`, a 3 GiB sparse file named like the notebook.

Then every student has exactly one row, grades.csv and results.json are valid and inert,
reports hold submission text only inside code, the terminal gets no control characters, and
what the grader noticed as tampering is listed per student in flags.csv, in the gradebook's
flags column and in the summary. In-process tests inject failures into one student's grading
and writing and check that the class still gets its gradebook.
"""

from __future__ import annotations

import csv
import itertools
import json
import os
import re
import subprocess
import sys
import unicodedata
from pathlib import Path

import fixtures
import hypothesis.strategies as st
import nbformat
import pytest
from grader_cli import grade, grade_batch, place
from hypothesis import given, settings

from autograder import batch, discovery, escape, grading, isolation, notebook, report
from autograder.reference import REPOSITORY
from autograder.results import ItemResult, NotebookResult, TestResult
from autograder.rubric import EXERCISES, exercise_for

PARSE = exercise_for("01_parse_cron_field")
HOSTILE = REPOSITORY / "tests" / "corpus" / "hostile"
OPTIONS = ["--sandbox=required", "--jobs", "2", "--time-limit", "20"]
LONG_NAME = "01_parse_cron_field-" + "x" * (241 - len("01_parse_cron_field-.ipynb")) + ".ipynb"
FORGING_NAME = '=HYPERLINK("evil.example")\nada,schedules,01_parse_cron_field,25,25\n.ipynb'
CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
HONEST = ("ada", "grades.csv", "long", "=1+1")


def exercises_of(assignment: str) -> list:
    return [exercise for exercise in EXERCISES if exercise.assignment == assignment]


def _corpus(name: str):
    return fixtures.corpus_submission(fixtures.read_corpus_entry(HOSTILE / f"{name}.py"))


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    root = tmp_path_factory.mktemp("hostile-names")
    submitted, out = root / "submitted", root / "graded"
    honest = fixtures.honest_submission(PARSE)
    ada = place(submitted, "ada", PARSE, honest)
    place(submitted, "grades.csv", PARSE, honest)
    place(submitted, "long", PARSE, honest, LONG_NAME)
    place(submitted, "=1+1", PARSE, honest, FORGING_NAME)
    place(submitted, "eve", PARSE, _corpus("unencodable_error"))
    place(submitted, "mallory", PARSE, _corpus("forged_channel_labels"))
    folder = submitted / "sym" / PARSE.assignment
    folder.mkdir(parents=True)
    (folder / f"{PARSE.notebook}.ipynb").symlink_to(ada)
    hard = submitted / "hard" / PARSE.assignment / f"{PARSE.notebook}.ipynb"
    hard.parent.mkdir(parents=True)
    os.link(place(submitted, "linked", PARSE, honest), hard)
    huge = submitted / "huge" / PARSE.assignment / f"{PARSE.notebook}.ipynb"
    huge.parent.mkdir(parents=True)
    with open(huge, "wb") as handle:
        handle.truncate(3 * 2**30)
    first = grade_batch(submitted, out, *OPTIONS, timeout=300)
    if first.returncode == 1 and "bubblewrap" in first.stderr:
        pytest.skip(f"the sandbox is not available here: {first.stderr.strip()[-300:]}")
    gradebook = (out / "grades.csv").read_bytes() if (out / "grades.csv").is_file() else b""
    second = grade_batch(submitted, out, *OPTIONS, timeout=300)
    return out, first, second, gradebook


def _rows(out: Path, notebook: str | None = PARSE.notebook) -> list[dict]:
    """The gradebook's rows for the notebook the class handed in (each student also has a
    "not submitted" row for every other notebook of the assignment), or every row."""
    with open(out / "grades.csv", newline="", encoding="utf-8") as handle:
        return [row for row in csv.DictReader(handle)
                if notebook is None or row["notebook"] == notebook]


def test_the_batch_and_its_rerun_end_with_status_0(graded):
    out, first, second, gradebook = graded
    assert first.returncode == 0, first.stderr[-3000:]
    assert second.returncode == 0, second.stderr[-3000:]
    # sym's link is refused when the class folder is read, so nine notebooks were graded.
    assert "skipped 9 unchanged" in second.stderr, second.stderr[-2000:]
    # what could not be graded stays counted when its result is carried over
    count = re.compile(r"(\d+) could not be graded")
    assert count.findall(second.stderr) == count.findall(first.stderr) != ["0"], (
        first.stderr[-2000:])
    assert (out / "grades.csv").read_bytes() == gradebook


def test_every_student_has_one_row_and_honest_work_full_marks(graded):
    out, *_ = graded
    rows = _rows(out)
    assert (out / "grades.csv").is_file()
    students = sorted(row["student"] for row in rows)
    assert students == sorted(["ada", "grades.csv", "long", "'=1+1", "eve", "mallory", "sym",
                               "huge", "hard", "linked"])
    scores = {row["student"]: float(row["score"]) for row in rows}
    for student in ("ada", "grades.csv", "long", "'=1+1", "hard", "linked"):
        assert scores[student] == PARSE.max_score, (student, rows)
    for student in ("eve", "mallory", "sym", "huge"):
        assert scores[student] == 0, (student, rows)
    for student in ("ada", "grades.csv", "long", "=1+1", "eve", "mallory", "sym"):
        assert (out / "students" / student / "schedules" / "results.json").is_file(), student
        assert (out / "students" / student / "report.md").is_file(), student


def test_the_gradebook_is_quoted_and_inert(graded):
    out, *_ = graded
    text = (out / "grades.csv").read_text(encoding="utf-8")
    lines = text.splitlines()
    assert len(lines) == 1 + 10 * len(exercises_of(PARSE.assignment)), "a file name forged a row"
    for line in lines:
        assert line.startswith('"') and line.endswith('"'), line
    for row in _rows(out, None):
        for value in row.values():
            assert not value.lstrip().startswith(("=", "+", "-", "@")), row
            assert not CONTROL.search(value) and "\n" not in value, row
    forged = next(row for row in _rows(out) if row["student"] == "'=1+1")
    # Recognised by its graded cells and recorded under the exercise's name; the file name
    # that tried to forge a row is only ever shown escaped.
    assert forged["notebook"] == PARSE.notebook


def test_results_json_is_valid_utf8_without_surrogates(graded):
    out, *_ = graded
    for path in (out / "students").glob("*/*/results.json"):
        raw = path.read_bytes()
        data = json.loads(raw.decode("utf-8"))
        assert not re.search("[\ud800-\udfff]", json.dumps(data, ensure_ascii=False)), path
        assert data["output_format"] == "text"
    eve_results = out / "students" / "eve" / "schedules" / "results.json"
    eve = json.loads(eve_results.read_text(encoding="utf-8"))
    assert eve["score"] == 0
    assert any("BadName\\e[2J" in test["output"] for test in eve["tests"]), eve["tests"][:2]
    for path in (out / "students").glob("*/*/results.json"):
        data = json.loads(path.read_text(encoding="utf-8"))
        texts = [data["output"], *(test["name"] for test in data["tests"]),
                 *(test["output"] for test in data["tests"])]
        assert not any(CONTROL.search(text.replace("\n", "")) for text in texts), path
    mallory = json.loads((out / "students" / "mallory" / "schedules" / "results.json").read_text())
    assert mallory["score"] == 0 and "PASSED" not in json.dumps(mallory)  # nothing forged arrived


def test_a_cell_type_cannot_forge_lines_of_gradescopes_output(tmp_path):
    """An answer cell whose type is changed to text with a newline, terminal escapes and a
    right-to-left override: results.json (Gradescope's output, plain text) shows the problem
    on one line of its own, with those characters as escapes."""
    forged = "\x1b[31mraw\n01_parse_cron_field: 25 / 25 points\u202e"
    honest = fixtures.honest_submission(PARSE)
    for cell in honest.cells:
        if cell.get("metadata", {}).get("nbgrader", {}).get("grade_id") == \
                "answer_parse_cron_field":
            cell["cell_type"] = forged
    path = place(tmp_path / "submitted", "ada", PARSE, json.dumps(honest).encode())
    done = grade([path], tmp_path / "results.json", "--sandbox", "off")
    assert done.returncode == 0, done.stderr[-2000:]
    data = json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))
    assert data["score"] == 0
    lines = data["output"].split("\n")
    assert not any(line.startswith("01_parse_cron_field: 25") for line in lines), lines
    assert any(line.startswith("  problem: ") and "\\e[31mraw\\n01_parse_cron_field" in line
               for line in lines), lines
    assert not CONTROL.search(json.dumps(data, ensure_ascii=False).replace("\n", ""))
    assert "\u202e" not in json.dumps(data, ensure_ascii=False)


def test_an_exception_class_name_cannot_forge_lines_of_gradescopes_output(tmp_path):
    """A function that raises an exception whose class name holds line breaks: every test's
    output in results.json stays lines the grader wrote, with the name's breaks as escapes."""
    source = ("class Oops(Exception):\n    pass\n"
              "Oops.__name__ = 'ValueError\\n\\nAll hidden tests passed: 25 / 25 points'\n"
              "def parse_cron_field(field, low, high):\n    raise Oops('no')\n")
    made = fixtures.build_submission(PARSE, {"answer_parse_cron_field": source})
    path = place(tmp_path / "submitted", "ada", PARSE, made)
    done = grade([path], tmp_path / "results.json", "--sandbox", "off")
    assert done.returncode == 0, done.stderr[-2000:]
    data = json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))
    assert data["score"] == 0
    outputs = [test["output"] for test in data["tests"]]
    assert any("All hidden tests passed" in output for output in outputs), outputs[:3]
    for output in outputs:
        assert not any(line.startswith("All hidden tests passed")
                       for line in output.split("\n")), output


def test_reports_show_submission_text_only_as_code(graded):
    out, *_ = graded
    for student in ("eve", "mallory", "=1+1"):
        text = (out / "students" / student / "report.md").read_text(encoding="utf-8")
        headings = [line for line in text.splitlines() if line.startswith("#")]
        assert all(line.startswith(("# Grading report: `", "## `")) for line in headings), \
            headings
        if student != "=1+1":
            assert "25 / 25 points" not in "\n".join(headings)
        for line in text.splitlines():
            if "<script>" in line or "<img" in line or "<b>" in line:
                assert line.startswith(("- `", "- **")) and "`" in line, line
        assert not CONTROL.search(text.replace("\t", "")), student


def test_labels_come_from_the_grader_not_the_sandbox(graded):
    out, *_ = graded
    text = (out / "students" / "mallory" / "report.md").read_text(encoding="utf-8")
    assert "answer cell answer_parse_cron_field\\n" not in text
    assert "25 / 25 points" not in text and "<b>" not in text


def test_the_terminal_gets_no_control_characters(graded):
    _, first, second, _ = graded
    for run in (first, second):
        assert not CONTROL.search(run.stderr.replace("\n", "")), \
            [line for line in run.stderr.splitlines() if CONTROL.search(line)]
    progress = [line for line in first.stderr.splitlines() if line.startswith("[")]
    # one line per graded notebook: sym's link is refused before grading
    assert len(progress) == 9 and len(set(progress)) == 9
    assert not any("mallory 25/25" in line and not line.startswith("[") for line in
                   first.stderr.splitlines())


def test_tampering_is_listed_per_student(graded):
    out, first, second, _ = graded
    with open(out / "flags.csv", newline="", encoding="utf-8") as handle:
        flags = list(csv.DictReader(handle))
    flagged = {row["student"] for row in flags}
    # mallory's forged records never reach the grader (see the module docstring), so there is
    # nothing of hers to flag; tests/corpus/hostile/forged_case_outcomes.py shows what the
    # relay flags when notebook code does reach it.
    assert flagged == {"sym", "huge", "hard", "linked"}, flags
    assert any("refused" in row["flag"] and "larger than" in row["flag"] for row in flags
               if row["student"] == "huge")
    assert any("2 hard links" in row["flag"] for row in flags if row["student"] == "hard")
    gradebook = {row["student"]: row for row in _rows(out)}
    assert all(gradebook[student]["flags"] for student in flagged)
    assert not any(gradebook[student]["flags"] for student in HONEST if student != "=1+1")
    for run in (first, second):
        summary = run.stderr[run.stderr.index("graded "):]
        assert "tampering noticed for 4 students" in summary
        for student in flagged:
            assert f"\n  {student}: " in summary, summary


def test_grade_names_tampering_on_stderr(tmp_path):
    link = tmp_path / f"{PARSE.notebook}.ipynb"
    link.symlink_to(place(tmp_path / "class", "ada", PARSE, fixtures.stub_submission(PARSE)))
    done = grade([link], tmp_path / "results.json", "--sandbox=off")
    assert done.returncode == 0, done.stderr
    assert "tampering noticed in" in done.stderr and "symbolic link" in done.stderr


def test_refused_files_say_why_in_the_gradebook(graded):
    out, *_ = graded
    notes = {row["student"]: row["note"] for row in _rows(out)}
    assert "larger than 20 MiB" in notes["huge"]
    assert "symbolic link" in notes["sym"]
    assert all(not notes[student] for student in ("ada", "grades.csv", "long"))


@pytest.mark.parametrize("kind", ["fifo", "folder", "sparse"])
def test_files_are_checked_before_they_are_read(tmp_path, kind):
    """A named pipe would block a reader for ever, and a sparse file would be read whole."""
    path = tmp_path / f"{PARSE.notebook}.ipynb"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "folder":
        path.mkdir()
    else:
        with open(path, "wb") as handle:
            handle.truncate(3 * 2**30)
    result = grading.grade_safely(path, _options())
    assert result.score == 0 and not result.readable and not result.grader_failed
    assert result.flags and result.flags[0].startswith("refused"), result


# -- in process: failures injected into one student -------------------------------------------

def _class(tmp_path: Path, students: tuple[str, ...]) -> Path:
    submitted = tmp_path / "submitted"
    for student in students:
        place(submitted, student, PARSE, fixtures.stub_submission(PARSE))
    return submitted


def _fake_result(path: Path, shown: str, text: str = "fine") -> NotebookResult:
    item = PARSE.items[0]
    return NotebookResult(
        path=shown, notebook=PARSE.notebook, assignment=PARSE.assignment, score=item.points,
        max_score=PARSE.max_score, items=[ItemResult(
            item.grade_id, item.title, item.points, item.points,
            [TestResult(f"{PARSE.notebook} · {item.title}: t", item.points,
                                item.points, text, text == "fine")])],
        problems=[text] if text != "fine" else [], stderr=text)


def _options() -> grading.Options:
    return grading.Options(isolation=isolation.Isolation("none"))


def test_a_grading_failure_is_that_students_error(tmp_path, monkeypatch):
    submitted = _class(tmp_path, ("ann", "bob", "cy"))

    def grade(path, options, shown_as=None, within=None, ahead=None, prepared=None):
        if "/bob/" in str(path):
            raise RuntimeError("injected")
        return _fake_result(path, shown_as)

    monkeypatch.setattr(grading, "grade_safely", grade)
    summary = batch.grade_batch(submitted, tmp_path / "out", _options(), jobs=2,
                                progress=open(os.devnull, "w"), prepare=lambda found: None)
    rows = {row["student"]: row for row in _rows(tmp_path / "out")}
    assert set(rows) == {"ann", "bob", "cy"}
    assert rows["bob"]["score"] == "0" and "grader failed" in rows["bob"]["note"]
    assert rows["ann"]["score"] == rows["cy"]["score"] != "0"
    assert summary.failed == 1 and "grader failed on 1 notebook" in summary.line(tmp_path)


def test_a_writing_failure_is_that_students_error(tmp_path, monkeypatch):
    submitted = _class(tmp_path, ("ann", "bob", "cy"))
    monkeypatch.setattr(grading, "grade_safely",
                        lambda path, options, shown_as=None, within=None, ahead=None, prepared=None:
                        _fake_result(path, shown_as))
    real = report.report_markdown

    def markdown(results, who=""):
        if who == "bob":
            raise OSError("injected: disk full")
        return real(results, who)

    monkeypatch.setattr(report, "report_markdown", markdown)
    batch.grade_batch(submitted, tmp_path / "out", _options(), progress=open(os.devnull, "w"),
                      prepare=lambda found: None)
    rows = {row["student"]: row for row in _rows(tmp_path / "out")}
    assert set(rows) == {"ann", "bob", "cy"}
    assert "could not write this student's results" in rows["bob"]["note"]
    assert not rows["ann"]["note"] and not rows["cy"]["note"]
    assert (tmp_path / "out" / "students" / "cy" / "report.md").is_file()


def test_unencodable_text_and_a_bad_cache_never_stop_a_rerun(tmp_path, monkeypatch):
    submitted = _class(tmp_path, ("ann", "bob"))
    nasty = "lone \ud800 surrogate, NUL \x00, escape \x1b[2J, newline\n# heading <b>"
    monkeypatch.setattr(grading, "grade_safely",
                        lambda path, options, shown_as=None, within=None, ahead=None, prepared=None:
                        _fake_result(path, shown_as, nasty))
    out = tmp_path / "out"
    for _ in range(2):  # the second run reads the saved results back
        batch.grade_batch(submitted, out, _options(), progress=open(os.devnull, "w"),
                          prepare=lambda found: None)
        data = json.loads((out / "students" / "ann" / "schedules" / "results.json").read_bytes())
        assert "lone \ufffd surrogate" in data["tests"][0]["output"]
    saved = list((out / "students" / "bob" / ".results").rglob("*.json"))
    assert len(saved) == 1
    record = json.loads(saved[0].read_text())
    record["result"]["items"] = "damaged"
    saved[0].write_text(json.dumps(record))
    saved = list((out / "students" / "ann" / ".results").rglob("*.json"))
    record = json.loads(saved[0].read_text())
    record["result"]["problems"] = [{"not": "a string"}, "\udcff"]
    record["result"]["stderr"] = "\udcff\x1b"
    saved[0].write_text(json.dumps(record))
    monkeypatch.setattr(grading, "grade_safely",
                        lambda path, options, shown_as=None, within=None, ahead=None, prepared=None:
                        _fake_result(path, shown_as))
    summary = batch.grade_batch(submitted, out, _options(), progress=open(os.devnull, "w"),
                                prepare=lambda found: None)
    assert summary.graded == 1 and summary.unchanged == 1
    assert {row["student"] for row in _rows(out)} == {"ann", "bob"}


def _graded_apart(submitted: Path, out: Path, monkeypatch) -> batch.Summary:
    """The class graded with every notebook's result made up (full marks on the first item),
    for what a batch does with students' names."""
    monkeypatch.setattr(grading, "grade_safely",
                        lambda path, options, shown_as=None, within=None, ahead=None, prepared=None:
                        _fake_result(path, shown_as))
    return batch.grade_batch(submitted, out, _options(), progress=open(os.devnull, "w"),
                             prepare=lambda found: None)


def test_folder_names_that_read_alike_are_graded_apart_and_flagged(tmp_path, monkeypatch):
    """`José` composed and decomposed (a Mac's zip), `Ada`, `ada` and fullwidth `ａｄａ`,
    `=bo` and fullwidth `＝ｂｏ`, and two names with a terminal escape in them: the gradebook
    had rows that read alike and nothing said so. Each is still graded as a student of their
    own, and flagged: a warning in the summary that shows the names in code points, a row
    each in flags.csv naming the others, and a note on each of their gradebook rows; all of
    it escaped as every name is, and a name nobody's reads like gets none of it."""
    nfc, nfd = "Jos\u00e9", "Jose\u0301"
    alike = (nfc, nfd, "Ada", "ada", "\uff41\uff44\uff41", "=bo", "\uff1d\uff42\uff4f",
             "cy\x1b[2J", "CY\x1b[2J")
    submitted = _class(tmp_path, (*alike, "dee"))
    out = tmp_path / "out"
    summary = _graded_apart(submitted, out, monkeypatch)
    rows = {row["student"]: row for row in _rows(out)}
    assert set(rows) == {escape.csv_key(name) for name in (*alike, "dee")}, sorted(rows)
    assert {row["score"] for row in rows.values()} == {f"{PARSE.items[0].points:g}"}
    assert "(Jose\\u0301 in code points) reads like another student's" in rows[nfd]["note"]
    assert "(\\uff41\\uff44\\uff41 in code points)" in rows["\uff41\uff44\uff41"]["note"]
    assert not rows["dee"]["note"]
    assert len({entry.name for entry in (out / "students").iterdir()}) == len(alike) + 1
    with open(out / "flags.csv", newline="", encoding="utf-8") as handle:
        flags = {row["student"]: row["flag"] for row in csv.DictReader(handle)}
    assert set(flags) == {escape.csv_key(name) for name in alike}, sorted(flags)
    assert "'=bo" in flags and "'\uff1d\uff42\uff4f" in flags  # never a formula
    assert flags[nfd].startswith("the folder name (Jose\\u0301 in code points) reads like "
                                 "Jos\\u00e9, another student's"), flags[nfd]
    assert "reads like Ada, \\uff41\\uff44\\uff41, another" in flags["ada"], flags["ada"]
    assert "reads like cy\\e[2J, another" in flags["CY\\e[2J"], flags
    for name in ("flags.csv", "grades.csv"):
        assert not CONTROL.search((out / name).read_text(encoding="utf-8")), name
    text = summary.line(out)
    assert not CONTROL.search(text), text
    assert f"warning: {len(alike)} students' folder names read like another's" in text, text
    assert f"\n  '{nfd}' (Jose\\u0301), '{nfc}' (Jos\\u00e9)\n" in text + "\n", text
    assert "\n  'Ada', 'ada', '\uff41\uff44\uff41' (\\uff41\\uff44\\uff41)" in text, text
    assert "tampering noticed" not in text and "dee" not in text, text


def test_folder_names_with_letters_of_another_script_that_look_latin_are_flagged(
        tmp_path, monkeypatch):
    """`аda` with a Cyrillic `а` (U+0430) beside `ada`, and `Ρeter` with a Greek capital Rho
    beside `peter`: no disk and no case folding takes them for one name, but a person does
    (Unicode's confusables, UTS #39). They get what `Ada` beside `ada` gets: graded apart,
    output folders that do not look alike, a row each in flags.csv and a note on each of their
    rows in code points, the summary's warning, and code points in the gradebook's table."""
    from autograder.gradebook import table

    cyrillic, greek = "\u0430da", "\u03a1eter"
    submitted = _class(tmp_path, ("ada", cyrillic, "peter", greek, "dee"))
    out = tmp_path / "out"
    summary = _graded_apart(submitted, out, monkeypatch)
    rows = {row["student"]: row for row in _rows(out)}
    assert set(rows) == {"ada", cyrillic, "peter", greek, "dee"}, sorted(rows)
    assert {row["score"] for row in rows.values()} == {f"{PARSE.items[0].points:g}"}
    assert "(\\u0430da in code points) reads like another student's" in rows[cyrillic]["note"]
    assert "(ada) reads like another student's" in rows["ada"]["note"]
    assert "(\\u03a1eter in code points)" in rows[greek]["note"] and not rows["dee"]["note"]
    with open(out / "flags.csv", newline="", encoding="utf-8") as handle:
        flags = {row["student"]: row["flag"] for row in csv.DictReader(handle)}
    assert set(flags) == {"ada", cyrillic, "peter", greek}, sorted(flags)
    assert flags["ada"].startswith("the folder name (ada) reads like \\u0430da, another "
                                   "student's"), flags["ada"]
    assert flags[greek].startswith("the folder name (\\u03a1eter in code points) reads like "
                                   "peter, another student's"), flags[greek]
    folders = {entry.name for entry in (out / "students").iterdir()}
    assert "dee" in folders and not folders & {"ada", cyrillic, "peter", greek}, folders
    text = summary.line(out)
    assert "warning: 4 students' folder names read like another's" in text, text
    assert f"\n  'ada', '{cyrillic}' (\\u0430da)\n" in text, text
    assert f"\n  'peter', '{greek}' (\\u03a1eter)" in text, text
    shown = table(_rows(out, None)).splitlines()
    assert {line.split()[0] for line in shown[2:7]} == {"ada", "\\u0430da", "peter",
                                                        "\\u03a1eter", "dee"}, shown


@pytest.mark.fast
def test_names_that_look_alike_across_scripts_read_alike_and_others_do_not():
    """Unicode's skeleton (UTS #39) tells Latin letters from the letters of other scripts
    drawn alike; names that only share letters, or whose letters differ to the eye, do not
    read alike. Every character of the confusables table has a key (none loops)."""
    from confusable_homoglyphs import confusables

    alike = [("ada", "\u0430da"), ("ada", "\u0251da"), ("peter", "\u03a1eter"),
             ("hans", "\u0397ans"), ("amold", "arnold"), ("ada1", "adal"),
             ("\u0430\u0441\u0435", "ace"), ("Ada", "\u0430da")]
    for one, other in alike:
        assert discovery.look_alikes([one, other, "bob"]) == {one: (other,), other: (one,)}, \
            (one, other)
    apart = ["ada", "adb", "zoë", "zoe", "\u0434\u0430", "\u4e1c\u4eac", "bob", "b\u00f6b",
             "kim", "\u043a\u0438\u043c"]
    assert discovery.look_alikes(apart) == {}
    assert discovery.look_alikes(["Ada", "ada", "\u0430da"])["Ada"] == ("ada", "\u0430da")
    names = discovery.StudentNames((student, student) for student in ("ada", "bo"))
    assert names.match("\u0430da") == discovery.NameMatch(alike=("ada",))
    folders = discovery.output_folders(["ada", "\u0430da", "bo"])
    assert folders["bo"] == "bo" and folders["ada"] != "ada" != folders["\u0430da"]
    for character, glyphs in confusables.confusables_data.items():
        for text in (character, *(glyph["c"] for glyph in glyphs)):
            assert isinstance(discovery.confusable_key(text), str)


@pytest.mark.fast
def test_the_confusables_table_is_the_package_s_own_read_without_its_network_modules():
    """The grader reads confusable-homoglyphs' table from its data file: for every character it
    finds what the package's `is_confusable` finds, and it imports none of the modules the
    package loads to download updates (urllib.request, http, email), a third of a batch's
    start-up."""
    from confusable_homoglyphs import confusables

    for character, glyphs in confusables.confusables_data.items():
        for text in (character, *(glyph["c"] for glyph in glyphs)):
            found = confusables.is_confusable(text, greedy=True) if len(text) == 1 else False
            assert discovery._homoglyphs(text) == (tuple(
                glyph["c"] for glyph in found[0]["homoglyphs"]) if found else ()), text
    code = ("import sys\n"
            "from autograder import discovery\n"
            "assert discovery.look_alikes(['ada', '\\u0430da', 'bob']) == "
            "{'ada': ('\\u0430da',), '\\u0430da': ('ada',)}\n"
            "print(' '.join(sorted(name for name in sys.modules "
            "if name == 'urllib.request' or name.split('.')[0] in ('http', 'email'))))")
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           check=True, cwd=Path(__file__).resolve().parent.parent)
    assert shown.stdout.split() == [], shown.stdout


@given(st.text(max_size=12), st.text(max_size=12))
@settings(max_examples=300, deadline=None)
def test_code_points_are_plain_ascii_and_tell_every_two_names_apart(one, other):
    for name in (one, other):
        shown = escape.code_points(name)
        assert shown.isascii() and shown.isprintable(), shown
    if escape.text(one) != escape.text(other):
        assert escape.code_points(one) != escape.code_points(other)
    assert escape.code_points("kim\x1bx") != escape.code_points("kim\\ex")


def test_the_cache_file_name_does_not_grow_with_the_notebook_name(tmp_path):
    submission = batch.Submission("s", "schedules", tmp_path / ("n" * 250 + ".ipynb"))
    saved = submission.saved_result(tmp_path)
    assert len(saved.name) < 64 and saved.parent.parent.parent == tmp_path / "students" / "s"


# -- escaping, one place for it ----------------------------------------------------------------

def test_escape_for_each_destination():
    assert escape.terminal("a\x1b[2Jb\r\nc\u202e") == "a\\e[2Jb\\r\\nc\\u202e"
    # format characters: a zero-width space, an Arabic letter mark, a byte-order mark, a soft
    # hyphen, a tag character; private use; names that look alike stay apart
    assert escape.terminal("a\u200bda\u061c\ufeff\xad\U000e0041\ue000") == \
        "a\\u200bda\\u061c\\ufeff\\u00ad\\U000e0041\\ue000"
    assert escape.terminal("a\u200bda") != escape.terminal("ada")
    assert escape.terminal("Zoë 東京 \u00a0x") == "Zoë 東京 \u00a0x"
    assert escape.text("x\ud800y") == "x\ufffdy"
    assert escape.code_span("a ` b\n# h") == "``a ` b\\n# h``"
    assert escape.code_span("`x") == "`` `x ``"
    assert escape.csv_cell("=1+1") == "'=1+1" and escape.csv_cell("@SUM(A1)") == "'@SUM(A1)"
    assert escape.csv_cell("-2") == "'-2" and escape.csv_cell("ada") == "ada"
    assert escape.csv_cell("'-ada") == "''-ada" != escape.csv_cell("-ada")
    block = escape.code_block("``` \n<b>\x1b")
    assert block.startswith("````text\n") and block.endswith("\n````") and "\\e" in block


# What a spreadsheet or a CSV import may drop before it looks for a formula: a no-break, an
# ideographic and a narrow no-break space, a zero-width space, a byte-order mark, a word
# joiner, a Hangul filler, a variation selector.
INVISIBLE_STARTS = ("\u00a0", "\u3000", "\u202f", "\u200b", "\ufeff", "\u2060", "\u3164",
                    "\ufe0f", " \u00a0\u200b")


def _reads_as_formula(cell: str) -> bool:
    """Whether a cell, as written, starts with = + - @ once white space and invisible
    characters are passed over."""
    visible = "".join(itertools.dropwhile(
        lambda c: c.isspace() or unicodedata.category(c) in ("Cc", "Cf", "Mn")
        or c in "\u3164\u115f\u1160\uffa0", cell))
    return visible[:1] in ("=", "+", "-", "@", "\uff1d", "\uff0b", "\uff0d", "\uff20")


@pytest.mark.fast
@pytest.mark.parametrize("start", INVISIBLE_STARTS)
def test_a_formula_after_white_space_or_invisible_characters_gets_a_quote(start):
    for formula in ("=1+1", "@SUM(A1)", "-2", "+1"):
        for cell in (escape.csv_cell(start + formula), escape.csv_key(start + formula)):
            assert cell.startswith("'") and not _reads_as_formula(cell), (start, cell)
    assert escape.csv_cell(start + "'x") != escape.csv_cell(start + "x")  # never one cell
    assert not escape.csv_cell(start + "ada").startswith("'")


def test_folder_and_file_names_that_start_invisibly_with_a_formula_stay_inert(tmp_path):
    """A student folder whose name starts with a no-break space and `=`, one that starts with
    an ideographic space and `@` whose notebook is a symbolic link, and a notebook beside the
    student folders whose name starts with a byte-order mark and `-`: the names reach
    grades.csv (the student, and a note naming the file that counted), flags.csv (the
    refused link) and not-graded.csv, each with a ' in front."""
    submitted, out = tmp_path / "submitted", tmp_path / "graded"
    honest, stub = fixtures.honest_submission(PARSE), fixtures.stub_submission(PARSE)
    sheet, linked = "\u00a0=HYPERLINK(\"evil.example\")", "\u3000@SUM(A1)"
    ada = place(submitted, sheet, PARSE, honest)
    place(submitted, sheet, PARSE, stub, "Untitled.ipynb")
    folder = submitted / linked / PARSE.assignment
    folder.mkdir(parents=True)
    (folder / f"{PARSE.notebook}.ipynb").symlink_to(ada)
    (submitted / "\ufeff-2+3.ipynb").write_text("{}")
    done = grade_batch(submitted, out, "--sandbox", "off", timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    seen = set()
    for table in ("grades.csv", "flags.csv", "not-graded.csv"):
        with open(out / table, newline="", encoding="utf-8") as handle:
            for row in csv.reader(handle):
                for cell in row:
                    assert not _reads_as_formula(cell), (table, cell)
                    seen.add((table, cell[:3]))
    assert {("grades.csv", "'\u00a0="), ("grades.csv", "'\u3000@"), ("flags.csv", "'\u3000@"),
            ("not-graded.csv", "'\\u")} <= seen, sorted(seen)
    notes = [row["note"] for row in _rows(out) if row["note"].startswith("'\u00a0=HYPERLINK")]
    assert notes and "counted for 01_parse_cron_field" in notes[0], _rows(out)


# Code points drawn as nothing that no category of escape.SHOWN_AS_ESCAPES holds: the combining
# grapheme joiner, Hangul fillers, Khmer inherent vowels, Mongolian and other variation
# selectors (Unicode's Default_Ignorable_Code_Point, less its format characters and its
# unassigned code points).
DRAWN_AS_NOTHING = frozenset({0x34F, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x180B, 0x180C, 0x180D,
                              0x180F, 0x3164, 0xFFA0, *range(0xFE00, 0xFE10),
                              *range(0xE0100, 0xE01F0)})
# Code points drawn as a blank that are neither white space nor default-ignorable: those
# Unicode's names and annotations call blank (the Braille blank, and Unicode 15's Egyptian
# full and half blank, unassigned in older Unicode data).
DRAWN_AS_BLANK = frozenset({0x2800, 0x13441, 0x13442})
# Named blank but drawn: a symbol that pictures a blank.
BLANK_SIGNS = frozenset({0x2422})  # BLANK SYMBOL


def test_terminal_escapes_controls_formats_and_what_is_drawn_as_nothing():
    """Every code point is shown as itself or as an escape: by its Unicode category (controls,
    format characters, separators, private use, unassigned code points), or because it is
    drawn as nothing (DRAWN_AS_NOTHING: `ada` followed by a variation selector printed as
    `ada`) or as a blank (DRAWN_AS_BLANK: `ada` and the Braille blank printed as `ada `); and
    the nbgrader path (safe_text) escapes the very same characters."""
    from autograder.nbgrader_autograde import safe_text

    for code in range(0x110000):
        character = chr(code)
        if 0xD800 <= code <= 0xDFFF:
            continue  # lone surrogates become U+FFFD first (escape.text)
        category = unicodedata.category(character)
        escaped = category in escape.SHOWN_AS_ESCAPES or category == "Cn" \
            or code in DRAWN_AS_NOTHING or code in DRAWN_AS_BLANK
        assert (escape.terminal(character) != character) is escaped, hex(code)
        if code % 97 == 0 or escaped:
            assert (safe_text(character) != character) is (escaped and character != "\n"), \
                hex(code)
    assert escape.terminal("ada\u034f") == "ada\\u034f" != escape.terminal("ada")
    assert escape.terminal("ada\U000e0080") == "ada\\U000e0080"  # unassigned
    assert escape.terminal("ada\u2800") == "ada\\u2800" != escape.terminal("ada ")


@pytest.mark.fast
def test_every_character_unicode_names_blank_is_shown_as_an_escape_and_read_as_a_space():
    """The characters whose Unicode name says BLANK, in this Python's Unicode data, are
    DRAWN_AS_BLANK or draw a sign (BLANK_SIGNS): a character a newer Unicode adds under such
    a name must be judged here. Each blank is an escape on every path that shows a name
    (terminal, nbgrader's log, a gradebook cell), and reads as the space it looks like."""
    from autograder.nbgrader_autograde import safe_text

    named = {code for code in range(0x110000)
             if "BLANK" in unicodedata.name(chr(code), "").split()}
    assert 0x2800 in named and named <= DRAWN_AS_BLANK | BLANK_SIGNS, sorted(map(hex, named))
    for code in DRAWN_AS_BLANK:
        blank, shown = chr(code), chr(code).encode("unicode_escape").decode("ascii")
        assert escape.terminal(f"ada{blank}") == safe_text(f"ada{blank}") == f"ada{shown}"
        assert escape.csv_key(f"{blank}=1+1") == f"'{shown}=1+1"
        assert discovery.alike_key(f"ada{blank}") == discovery.alike_key("ada")
        assert discovery.alike_key(f"a{blank}da") == discovery.alike_key("a da")
    for code in BLANK_SIGNS:
        assert escape.terminal(chr(code)) == chr(code)


# Folder names that print like `ada` but are not: a character drawn as nothing after it (the
# combining grapheme joiner, a Hangul filler, a variation selector, an unassigned tag
# character, a zero-width space), a blank at an end (the Braille blank), or white space at
# an end (a no-break space, an ideographic space, a plain space).
INVISIBLY_ADA = ("ada\u034f", "ada\u3164", "ada\ufe0f", "ada\U000e0080", "\u200bada",
                 "ada\u2800", "\u2800ada", "ada\u00a0", "ada\u3000", "ada ")


@pytest.mark.fast
def test_names_that_differ_only_by_what_is_drawn_as_nothing_read_alike():
    """Each of INVISIBLY_ADA reads like `ada` (UTS #39's skeleton drops default-ignorable code
    points; a person sees no white space at an end), so it is flagged and gets an output
    folder that does not look like ada's; names whose visible letters differ do not read
    alike. Every cell and terminal line shows a character drawn as nothing as an escape."""
    for name in INVISIBLY_ADA:
        assert discovery.look_alikes(["ada", name, "bob"]) == {"ada": (name,), name: ("ada",)}, \
            ascii(name)
        folders = discovery.output_folders(["ada", name])
        assert len({discovery.alike_key(folder) for folder in folders.values()}) == 2, folders
    assert discovery.look_alikes(["ada", "a da", "ad a", "adam"]) == {}
    # a blank inside reads as the space it looks like, not as nothing
    assert discovery.look_alikes(["ada", "a\u2800da", "a da"]) == {
        "a da": ("a\u2800da",), "a\u2800da": ("a da",)}
    drawn = [name for name in INVISIBLY_ADA if name.strip() == name]  # the rest: flagged
    assert [escape.csv_key(name).count("\\") for name in drawn] == [1] * len(drawn), drawn
    assert all("\\" in escape.terminal(name) for name in drawn), drawn


def test_folder_names_that_print_like_another_s_are_flagged(tmp_path, monkeypatch):
    """`ada` beside `ada` followed by the combining grapheme joiner, a variation selector, a
    no-break space or the Braille blank: every progress line, gradebook row and output folder
    read `ada`, and nothing said that they were five students. They are graded apart and
    flagged as names that read alike, and each name is shown apart wherever it is written."""
    names = ("ada", "ada\u034f", "ada\ufe0f", "ada\u00a0", "ada\u2800")
    submitted = _class(tmp_path, (*names, "dee"))
    out = tmp_path / "out"
    summary = _graded_apart(submitted, out, monkeypatch)
    rows = {row["student"]: row for row in _rows(out)}
    assert set(rows) == {"ada", "ada\\u034f", "ada\\ufe0f", "ada\u00a0", "ada\\u2800", "dee"}, \
        sorted(rows)
    assert {row["score"] for row in rows.values()} == {f"{PARSE.items[0].points:g}"}
    assert "(ada\\ufe0f in code points) reads like another student's" in \
        rows["ada\\ufe0f"]["note"] and not rows["dee"]["note"]
    with open(out / "flags.csv", newline="", encoding="utf-8") as handle:
        flags = {row["student"]: row["flag"] for row in csv.DictReader(handle)}
    assert set(flags) == set(rows) - {"dee"}, sorted(flags)
    folders = {entry.name for entry in (out / "students").iterdir()}
    assert len({discovery.alike_key(folder) for folder in folders}) == len(names) + 1, folders
    text = summary.line(out)
    assert f"warning: {len(names)} students' folder names read like another's" in text, text
    assert "(ada\\u034f)" in text and "ada\u034f" not in text, text
    assert "(ada\\u2800)" in text and "\u2800" not in text, text


HOSTILE_FILE = ("x\x1b[2J\x1b]0;pwned\x07\r\n# Total: 185 of 185 points\n"
                "<img src=x onerror=alert(1)>.py")


def test_a_file_name_in_the_report_notes_is_shown_literally(tmp_path):
    """The notes of a student's report name the files the grader found (here a script
    export beside the notebook): a name holding escapes, a forged heading and HTML is shown
    in a code span, on one line."""
    submitted, out = tmp_path / "submitted", tmp_path / "graded"
    notebook = place(submitted, "ada", PARSE, fixtures.stub_submission(PARSE))
    (notebook.parent / HOSTILE_FILE).write_text("print(1)\n")
    done = grade_batch(submitted, out, "--sandbox", "off", timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    text = (out / "students" / "ada" / "report.md").read_text(encoding="utf-8")
    notes = text.split("## Notes from the grader and the instructor", 1)[1]
    assert "a Python script export" in notes
    assert not CONTROL.search(notes.replace("\n", "")), notes
    lines = notes.strip().splitlines()
    assert len(lines) == 1 and "\\e[2J" in lines[0], notes
    assert re.fullmatch(r"- 01_parse_cron_field: (`+)[^`].*[^`]\1", lines[0]), notes


def test_an_upload_of_thousands_of_stray_files_is_summed_up_on_each_row(tmp_path):
    """A Gradescope upload of a script export and 3,000 stray files: the export's note goes to
    the notebook it was made from, and each row names a few stray files and how many more,
    so results.json stays small instead of repeating every name on every notebook."""
    from autograder import gradescope

    upload = tmp_path / "upload"
    upload.mkdir()
    (upload / "01_parse_cron_field.py").write_text("def parse_cron_field(): pass\n")
    for number in range(3000):
        (upload / f"junk{number:04}.txt").write_text("x")
    results = tmp_path / "results.json"
    assert gradescope.run("schedules", upload, results) == 0
    shown = json.loads(results.read_text(encoding="utf-8"))
    assert results.stat().st_size < 64_000, results.stat().st_size
    problems = [line for line in shown["output"].splitlines() if "problem:" in line]
    assert len(problems) == len(exercises_of("schedules")), shown["output"]
    assert "01_parse_cron_field.py: a Python script export" in problems[0], problems[0]
    for line in problems[1:]:
        assert "01_parse_cron_field.py" not in line, line
    for line in problems:
        assert line.count("junk") == discovery.NOTES_SHOWN - 1, line
        assert re.search(r"and [\d,]+ more files or folders that were not graded\)$", line), line


def test_an_upload_s_deep_file_names_give_problem_lines_of_at_most_2000_characters(tmp_path):
    """A Gradescope upload's stray files, five folders deep, each name 255 control characters
    (1,530 characters each as escapes): a row's note names ten of them, and each `problem:`
    line of results.json held all of it (about 70,000 characters, on every notebook's line).
    Each is now one line of at most 2,000 characters, as in report.md."""
    from autograder import gradescope

    upload = tmp_path / "upload"
    deep = upload.joinpath(*["\x01" * 255] * 4)
    deep.mkdir(parents=True)
    for number in range(12):
        (deep / (f"{number:02}" + "\x01" * 253)).write_text("x")
    results = tmp_path / "results.json"
    assert gradescope.run("schedules", upload, results) == 0
    shown = json.loads(results.read_text(encoding="utf-8"))
    problems = [line for line in shown["output"].splitlines() if "problem:" in line]
    assert len(problems) == len(exercises_of("schedules")), shown["output"][:2000]
    for line in problems:
        assert "\\u0001" in line and not CONTROL.search(line), line[:200]
        assert len(line) <= len("  problem: ") + 2000, len(line)


def exported_scores(out: Path) -> dict[str, str]:
    """Each student's first assignment in `python -m autograder export`, once
    `python -m autograder.gradebook` has read the same grades.csv."""
    shown = subprocess.run([sys.executable, "-m", "autograder.gradebook", out / "grades.csv"],
                           cwd=REPOSITORY, capture_output=True, text=True, timeout=60)
    assert shown.returncode == 0, shown.stderr
    exported = subprocess.run([sys.executable, "-m", "autograder", "export", out, "--format",
                               "csv"], cwd=REPOSITORY, capture_output=True, text=True,
                              timeout=60)
    assert exported.returncode == 0, exported.stderr
    rows = list(csv.reader((out / "export.csv").read_text(encoding="utf-8").splitlines()))
    return {row[0]: row[2] for row in rows[1:]}


def test_thousands_of_copies_exports_or_links_leave_every_gradebook_cell_readable(tmp_path):
    """One student's 600 copies of a notebook, another's 1,990 exports named like a notebook
    they did not hand in, a third's 1,995 links: each named every file in one gradebook cell
    (up to 196,000 characters), past what Python's csv reads (131,072) and a spreadsheet
    holds (32,767), so `gradebook`, `export` and `merge` refused the whole class. Each cell
    now names a few and how many more, and the class's gradebook and export read."""
    submitted, out = tmp_path / "submitted", tmp_path / "graded"
    honest, stub = fixtures.honest_submission(PARSE), fixtures.stub_submission(PARSE)
    place(submitted, "ada", PARSE, honest)
    place(submitted, "copies", PARSE, honest)
    for number in range(600):
        place(submitted, "copies", PARSE, stub, f"01_parse_cron_field ({number}) {'x' * 200}"
                                                ".ipynb")
    exports = place(submitted, "exports", PARSE, honest).parent
    for number in range(1990):
        (exports / f"02_cron_matches ({number}).html").write_text("x")
    links = place(submitted, "links", PARSE, honest).parent
    for number in range(1995):
        (links / f"link{number}").symlink_to("/etc/passwd")
    done = grade_batch(submitted, out, "--sandbox", "off", timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    text = (out / "grades.csv").read_text(encoding="utf-8")
    longest = max(len(cell) for row in csv.reader(text.splitlines()) for cell in row)
    assert longest < 4000, longest
    assert "and 591 more files" in text and "more files named like 01" not in text
    assert "and 1,981 more files named like 02_cron_matches" in text
    assert "refused: a symbolic link; only files of the student's own are graded (1,995 " \
        "files)" in text
    assert exported_scores(out) == {"ada": "25", "copies": "25", "exports": "25",
                                    "links": "25"}


def test_file_names_of_control_characters_leave_every_gradebook_cell_readable(tmp_path):
    """Ten exports named like a notebook and ten stray files, each five folders deep in
    folders named with 250 control characters (each shown as a six-character escape): the
    notes of one row reached 150,000 characters, and `gradebook` and `export` refused the
    whole class. A cell is cut where a spreadsheet cell ends, and says so."""
    submitted, out = tmp_path / "submitted", tmp_path / "graded"
    honest = fixtures.honest_submission(PARSE)
    place(submitted, "ada", PARSE, honest)
    folder = place(submitted, "deep", PARSE, honest).parent
    for number in range(10):
        deep = folder.joinpath(*(f"{chr(1) * 250}{number}{level}" for level in range(4)))
        deep.mkdir(parents=True)
        (deep / f"02_cron_matches ({number}).html").write_text("x")
        (deep / f"{chr(1) * 250}.txt").write_text("x")
    done = grade_batch(submitted, out, "--sandbox", "off", timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    with open(out / "grades.csv", newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert max(len(cell) for row in rows for cell in row.values()) == escape.CELL_CHARACTERS
    assert rows[5]["note"].endswith("characters, more than a spreadsheet cell holds)")
    assert exported_scores(out) == {"ada": "25", "deep": "25"}


def test_folders_whose_names_read_alike_stay_separate_students(tmp_path):
    """A Windows-1252 folder name reads like a UTF-8 one beside it (`Â€ÿ`), or like a name
    typed with a backslash: each folder is a student of its own, the honest one keeps full
    marks and is not flagged, and the other's work never counts for it."""
    submitted, out = tmp_path / "submitted", tmp_path / "graded"
    honest, stub = fixtures.honest_submission(PARSE), fixtures.stub_submission(PARSE)
    folders = {"Â€ÿ": honest, os.fsdecode(b"\xc2\x80\xff"): stub,
               "zoë": honest, "zo\\xeb": honest, os.fsdecode(b"zo\xeb"): stub}
    for folder, made in folders.items():
        place(submitted, folder, PARSE, made)
    found = batch.discover(submitted)
    assert len(found.students) == len(set(found.students)) == 5, found.students
    assert sorted(s.path.parent.parent.name for s in found.submissions) == sorted(folders)
    assert all(s.path.is_relative_to(s.within) for s in found.submissions)
    done = grade_batch(submitted, out, "--sandbox", "off", timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    scores = {row["student"]: float(row["score"]) for row in _rows(out)}
    assert len(scores) == 5, scores
    # A literal backslash is doubled in a student cell (escape.csv_key): \\ never reads like
    # the escape of a character another student's name holds.
    assert scores["Â€ÿ"] == scores["zoë"] == scores["zo\\\\xeb"] == PARSE.max_score, scores
    with open(out / "flags.csv", newline="", encoding="utf-8") as handle:
        flagged = {row["student"]: row["flag"] for row in csv.DictReader(handle)}
    assert not {"Â€ÿ", "zoë", "zo\\\\xeb"} & set(flagged), flagged


def on_windows(folder: str) -> str:
    """The folder a name is on Windows and on the FAT and exFAT disks of memory sticks (which
    drop a trailing dot or space and ignore case), and on macOS (which ignores normal forms)."""
    return unicodedata.normalize("NFC", folder.rstrip(". ")).casefold()


def made_on_windows(folder: str) -> bool:
    """Whether Windows can make a folder of this name (no device name, no character it
    refuses)."""
    device = re.fullmatch(r"(con|prn|aux|nul|(com|lpt)[0-9\u00b9\u00b2\u00b3])(\..*)?", folder,
                          re.IGNORECASE)
    return not device and not re.search(r'[\x00-\x1f"*:<>?\\|]', folder)


def test_every_student_gets_a_report_folder_of_their_own_on_any_disk(tmp_path):
    """A folder name of 200 bytes in Windows-1252 reads as 400 bytes of UTF-8, too long for a
    folder; `Ada` and `ada` are one folder on macOS, and `bob.` is `bob` on Windows and on a
    memory stick (its stub's report replaced bob's there); `CON` and `a:b` are no folders
    there. Each student still gets a report folder of their own (distinct on every disk),
    their scores, and a saved result that the rerun reads back instead of grading again."""
    submitted, out = tmp_path / "submitted", tmp_path / "graded"
    honest, stub = fixtures.honest_submission(PARSE), fixtures.stub_submission(PARSE)
    long_name = os.fsdecode(b"\xe9" * 200)
    for folder, made in ((long_name, honest), ("Ada", honest), ("ada", stub), ("bob", honest),
                         ("bob.", stub), ("CON", honest), ("a:b", honest)):
        place(submitted, folder, PARSE, made)
    first = grade_batch(submitted, out, "--sandbox", "off", timeout=300)
    assert first.returncode == 0, first.stderr[-3000:]
    assert "the grader failed" not in first.stderr, first.stderr[-3000:]
    scores = {row["student"]: float(row["score"]) for row in _rows(out)}
    assert scores == {"é" * 200: PARSE.max_score, "Ada": PARSE.max_score, "ada": 0.0,
                      "bob": PARSE.max_score, "bob.": 0.0, "CON": PARSE.max_score,
                      "a:b": PARSE.max_score}, scores
    folders = [entry.name for entry in (out / "students").iterdir()]
    assert len({on_windows(folder) for folder in folders}) == 7, folders
    assert all(made_on_windows(folder) for folder in folders), folders
    reports = {}
    for folder in folders:
        assert (out / "students" / folder / PARSE.assignment / "results.json").is_file()
        reports[folder] = (out / "students" / folder / "report.md").read_text()
    owners = {text.splitlines()[0].removeprefix("# Grading report: ").strip("`"): text
              for text in reports.values()}
    assert set(owners) == set(scores), list(owners)
    full = f"`{PARSE.assignment}/{PARSE.notebook}`: {PARSE.max_score:g} / {PARSE.max_score:g}"
    assert {owner for owner, text in owners.items() if full in text} == {"é" * 200, "Ada",
                                                                        "bob", "CON", "a:b"}
    second = grade_batch(submitted, out, "--sandbox", "off", timeout=300)
    assert second.returncode == 0 and "skipped 7 unchanged" in second.stderr, second.stderr


def test_a_folder_left_by_an_earlier_run_is_named_in_the_summary(tmp_path):
    """`ADA` joins a class graded before: `ada`'s folder gets a new name, and the old one
    (with older results) is named in the summary instead of passing for the current one."""
    submitted, out = tmp_path / "submitted", tmp_path / "graded"
    place(submitted, "ada", PARSE, fixtures.stub_submission(PARSE))
    assert grade_batch(submitted, out, "--sandbox", "off").returncode == 0
    place(submitted, "ADA", PARSE, fixtures.honest_submission(PARSE))
    again = grade_batch(submitted, out, "--sandbox", "off")
    assert again.returncode == 0, again.stderr[-2000:]
    assert "also holds folders of no student of this run (ada)" in again.stderr, again.stderr
    assert (out / "students" / "ada").is_dir()  # nothing is deleted


@given(st.lists(st.text(st.characters(blacklist_characters="/\x00",
                                      blacklist_categories=("Cs",)), min_size=1, max_size=90)
                | st.sampled_from(["Ada", "ada", "ADA", "zoë", "zoe\u0308", "Straße",
                                   "\u03aa\u0301", "\u0390", "\uff41\uff44\uff41",
                                   "\u0430da", "\u0430d\u0430", "ada.", "ada ", "ada. .",
                                   "nul", "Com1.txt", "a:b", "a?b", "a_b"]),
                max_size=8))
@settings(max_examples=200, deadline=None)
def test_output_folders_are_short_distinct_on_any_disk_and_alike_in_every_order(names):
    names = [name * 3 if len(name) > 60 else name for name in names]  # some past 200 bytes
    folders = discovery.output_folders(names)
    assert set(folders) == set(names)
    assert all(len(folder.encode()) <= 255 for folder in folders.values())
    def alike(name: str) -> str:  # how a disk that ignores case and normal forms compares
        return unicodedata.normalize("NFC", unicodedata.normalize("NFD", name).casefold())

    keys = [alike(folder) for folder in folders.values()]
    assert len(set(keys)) == len(keys), folders
    assert len({on_windows(folder) for folder in folders.values()}) == len(keys), folders
    assert all(made_on_windows(folder) for folder in folders.values()), folders
    def looks_unlike_the_others(name: str) -> bool:  # to a disk or to the eye
        return all(key(other) != key(name) for key in discovery.ALIKE_KEYS
                   for other in names if other != name)

    for name in names:
        if len(name.encode()) <= discovery.FOLDER_BYTES and looks_unlike_the_others(name) \
                and made_on_windows(name) and not name.endswith((".", " ")):
            assert folders[name] == name  # a name that fits and reads like no other is kept
        else:
            assert folders[name] != name  # too long, or reads like another name: hashed
    assert discovery.output_folders(list(reversed(names))) == folders
    greek = discovery.output_folders(["\u03aa\u0301", "\u0390"])  # alike only once folded
    assert alike(greek["\u03aa\u0301"]) != alike(greek["\u0390"])


def test_a_student_folder_named_like_an_assignment_does_not_stop_the_batch(tmp_path):
    """Student folders named `capstone` and `\\r Capstone\\u2028` hold their notebooks
    directly: the class is still graded (they are told where their files belong), and
    nothing of their names reaches the terminal unescaped."""
    submitted, out = tmp_path / "submitted", tmp_path / "graded"
    place(submitted, "ada", PARSE, fixtures.honest_submission(PARSE))
    for folder in ("capstone", "\r\x0b\x85 Capstone\u2028\n"):
        target = submitted / folder / f"{PARSE.notebook}.ipynb"
        target.parent.mkdir(parents=True)
        nbformat.write(fixtures.honest_submission(PARSE), str(target))
    done = grade_batch(submitted, out, "--sandbox", "off", timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert {row["student"]: float(row["score"]) for row in _rows(out)}["ada"] == \
        PARSE.max_score
    assert not CONTROL.search(done.stderr.replace("\n", "")), done.stderr[-2000:]
    refused = grade_batch(submitted / "ada", tmp_path / "other", timeout=300)
    assert refused.returncode == 2 and "looks like one student's folder" in refused.stderr



def test_a_grade_id_that_is_no_text_does_not_stop_the_batch(tmp_path):
    """mal hands in two files for one exercise, one with a cell whose nbgrader `grade_id` is a
    list: telling which of them has work no longer raises (it stopped the whole batch before
    any gradebook was written); mal's work is graded and ada keeps full marks."""
    submitted, out = tmp_path / "submitted", tmp_path / "graded"
    place(submitted, "ada", PARSE, fixtures.honest_submission(PARSE))
    odd = fixtures.honest_submission(PARSE)
    odd.cells.insert(0, nbformat.v4.new_code_cell("x = 1", metadata={
        "nbgrader": {"grade_id": ["answer_parse_cron_field"]}}))
    place(submitted, "mal", PARSE, odd)
    place(submitted, "mal", PARSE, fixtures.stub_submission(PARSE), "Untitled.ipynb")
    done = grade_batch(submitted, out, "--sandbox", "off", timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    scores = {row["student"]: float(row["score"]) for row in _rows(out)}
    assert scores == {"ada": PARSE.max_score, "mal": PARSE.max_score}, scores

# -- the grader's own memory and CPU per submission --------------------------------------------

# The grader's own peak memory is VmHWM (ru_maxrss would include what the process that started
# it held when it forked); its CPU time is its own, without the sandboxes' (its children's).
MEASURE = r"""
import json, re, resource, sys
from pathlib import Path
from autograder import batch, grading, isolation
def cpu():  # this process's own (not time.process_time(), tick-coarse under a CPU timer)
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime
started = cpu()
summary = batch.grade_batch(Path(sys.argv[1]), Path(sys.argv[2]),
                            grading.Options(isolation=isolation.Isolation.choose("auto")), jobs=1,
                            progress=sys.stderr)
peak = int(re.search(r"VmHWM:\s*(\d+) kB", Path("/proc/self/status").read_text()).group(1))
print(json.dumps({"peak_mb": peak / 1024, "cpu": cpu() - started,
                  "graded": summary.graded}))
"""


def _measure(submitted: Path, out: Path) -> dict:
    done = subprocess.run([sys.executable, "-c", MEASURE, str(submitted), str(out)],
                          cwd=REPOSITORY, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_grader_memory_per_submission_is_bounded(tmp_path):
    """A 3 GiB sparse file (named like the notebook, and named like nothing) is refused from
    its size alone; the largest notebook the grader reads costs it a bounded amount of memory
    (docs/grader.md: "Limits")."""
    submitted = tmp_path / "submitted"
    for student, name in (("big", f"{PARSE.notebook}.ipynb"), ("other", "homework.ipynb")):
        path = submitted / student / PARSE.assignment / name
        path.parent.mkdir(parents=True)
        with open(path, "wb") as handle:
            handle.truncate(3 * 2**30)
    dense = fixtures.stub_submission(PARSE)
    dense.metadata["filler"] = "FILLER"
    text = nbformat.writes(dense).replace('"FILLER"', "[" + "{}," * (6 * 2**20) + "{}]")
    place(submitted, "dense", PARSE, text)
    cells = nbformat.writes(dense).replace('"FILLER"', "1").replace(
        '"cells": [', '"cells": [' + "{}," * (6 * 2**20))
    place(submitted, "cells", PARSE, cells)
    code = fixtures.stub_submission(PARSE)
    code.cells.append(nbformat.v4.new_code_cell("x = [" + "1," * 9_000_000 + "]"))
    place(submitted, "code", PARSE, code)
    for student in ("dense", "cells", "code"):
        size = (submitted / student / PARSE.assignment / f"{PARSE.notebook}.ipynb").stat().st_size
        assert 16 * 2**20 < size < 20 * 2**20
    # The largest the grader parses itself, whatever the length of the stub's own cells.
    empty = len(nbformat.writes(dense).replace('"FILLER"', "[{}]"))
    small = nbformat.writes(dense).replace(
        '"FILLER"', "[" + "{}," * ((notebook.IN_PROCESS_BYTES - empty) // 3) + "{}]")
    assert notebook.IN_PROCESS_BYTES - 3 < len(small) <= notebook.IN_PROCESS_BYTES
    place(submitted, "small", PARSE, small)
    measured = _measure(submitted, tmp_path / "out")
    # homework.ipynb is too large to read, so it is not recognised as a course notebook: it is
    # listed as not graded (with its size) instead of being graded and refused.
    assert measured["graded"] == 5
    assert measured["peak_mb"] < MEMORY_BOUND_MB, measured
    rows = {row["student"]: row for row in _rows(tmp_path / "out")}
    assert "larger than 20 MiB" in rows["big"]["note"] and rows["other"]["note"]
    assert "cells, more than the 5000" in rows["cells"]["note"]
    assert "MiB of code" in rows["code"]["note"]


MEMORY_BOUND_MB = 256  # docs/grader.md's bound for the grader process grading one submission


def test_nbgrader_metadata_full_of_values_costs_the_grader_bounded_memory(tmp_path):
    """nbgrader's metadata of 1,200 cells, each holding 2,490 empty lists (9 MiB in all): the
    grader kept it whole, and parsed it, from the notebook named like the exercise and from
    each copy beside it (545 MiB for one notebook of 19 MiB; three copies of this one came to
    about 800 MiB). Only the entries of nbgrader's schema with scalar values are kept."""
    hostile = fixtures.stub_submission(PARSE)
    for _ in range(1200):
        cell = nbformat.v4.new_markdown_cell("notes")
        cell.metadata["nbgrader"] = {"grade_id": "notes", "filler": "FILLER"}
        hostile.cells.append(cell)
    text = nbformat.writes(hostile).replace('"FILLER"', "[" + "[]," * 2489 + "[]]")
    assert 8 * 2**20 < len(text) < 10 * 2**20
    submitted = tmp_path / "submitted"
    place(submitted, "mallory", PARSE, text)
    folder = submitted / "mallory" / PARSE.assignment
    for copy in (1, 2):  # read to recognise them, and compared with the exact one
        (folder / f"{PARSE.notebook} ({copy}).ipynb").write_text(text)
    measured = _measure(submitted, tmp_path / "out")
    assert measured["graded"] == 1
    assert measured["peak_mb"] < MEMORY_BOUND_MB, measured
    rows = {row["student"]: row for row in _rows(tmp_path / "out")}
    assert float(rows["mallory"]["score"]) == 0


NESTED_ANSWERS = """
calls = 0


def parse_cron_field(field, low, high):
    global calls
    calls += 1
    if calls > 20:
        raise ValueError(field)
    answer = []
    for _ in range(3300):  # 198,000 lists in 400 KB of JSON
        chain = []
        for _ in range(59):
            chain = [chain]
        answer.append(chain)
    return answer
"""


def test_answers_of_nested_lists_cost_the_grader_bounded_memory(tmp_path):
    """Answers each within every limit of one value (200,000 items, 1 MiB) cost the grader
    about 70 bytes per two bytes of "[[]]": twenty of them took it to 400 MiB (all 42 to 800
    MiB and 14 s of its CPU). The grader now reads a bounded number of values per notebook;
    the classmate is graded as alone."""
    submitted = tmp_path / "submitted"
    place(submitted, "mallory", PARSE, fixtures.build_submission(
        PARSE, {"answer_parse_cron_field": NESTED_ANSWERS}))
    place(submitted, "ada", PARSE, fixtures.honest_submission(PARSE))
    measured = _measure(submitted, tmp_path / "out")
    assert measured["graded"] == 2
    assert measured["peak_mb"] < MEMORY_BOUND_MB, measured
    rows = {row["student"]: row for row in _rows(tmp_path / "out")}
    assert float(rows["ada"]["score"]) == PARSE.max_score
    assert float(rows["mallory"]["score"]) == 0
    report_text = (tmp_path / "out" / "students" / "mallory" / "report.md").read_text()
    assert "the hidden tests sent back more results than the grader reads" in report_text


def test_ipython_syntax_costs_the_grader_no_cpu(tmp_path):
    """A 60 KB cell of `!echo` lines costs IPython's transformer a minute of CPU; that work
    happens in the sandbox, under the cell's time limit, and the answers still count."""
    notebook = fixtures.build_submission(
        PARSE, fixtures.reference_answers(PARSE),
        [("answer_parse_cron_field", "!echo hello\n" * 5000)])
    place(tmp_path / "submitted", "ivy", PARSE, notebook)
    measured = _measure(tmp_path / "submitted", tmp_path / "out")
    assert measured["cpu"] < 15, measured
    rows = {row["student"]: row for row in _rows(tmp_path / "out")}
    assert float(rows["ivy"]["score"]) == PARSE.max_score


def test_a_batch_keeps_only_the_output_its_reports_show(tmp_path, monkeypatch):
    """stdout is shown nowhere and report.md shows OUTPUT_SHOWN characters of stderr: a batch
    keeps no more of either, in memory until the class is graded or in the saved results."""
    submitted = _class(tmp_path, ("ann", "bob"))

    def grade(path, options, shown_as=None, within=None, ahead=None, prepared=None):
        result = _fake_result(path, shown_as)
        result.stdout, result.stderr = "o" * 65536, "e" * 65536
        return result

    monkeypatch.setattr(grading, "grade_safely", grade)
    batch.grade_batch(submitted, tmp_path / "out", _options(), jobs=2,
                      progress=open(os.devnull, "w"), prepare=lambda found: None)
    saved = [json.loads(path.read_text())["result"]
             for path in (tmp_path / "out" / "students").glob("*/.results/*/*.json")]
    assert len(saved) == 2
    assert all(result["stdout"] == "" and result["stderr"] == "e" * (report.OUTPUT_SHOWN + 1)
               for result in saved), [(len(r["stdout"]), len(r["stderr"])) for r in saved]
    shown = (tmp_path / "out" / "students" / "ann" / "report.md").read_text()
    assert "stderr (shortened)" in shown and "e" * report.OUTPUT_SHOWN in shown
