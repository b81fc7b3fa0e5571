"""The pieces of the sandboxed nbgrader autograde that need no kernel, sandbox or course."""

from __future__ import annotations

import copy
import csv
import io
import logging
import os
import threading
from types import SimpleNamespace

import fixtures
import nbformat
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from nbgrader import utils
from nbgrader.api import MissingEntry
from nbgrader.nbgraderformat import MetadataValidator, ValidationError
from traitlets.config import Configurable

from autograder.nbgrader_autograde import (
    MAX_COPIED_BYTES,
    MAX_COPIED_FILES,
    MAX_NAMES_SHOWN,
    MAX_NOTEBOOK_VALUES,
    MAX_PAGE_ATTACHMENTS,
    MAX_PAGE_CELLS,
    MAX_PAGE_CODE,
    UNREADABLE,
    CheckMetadata,
    CompiledMetadataValidator,
    PercentPerDayLate,
    PrintableIds,
    PrintableLog,
    SandboxedExporter,
    SandboxedGrading,
    _copy_own_files,
    cell_report,
    graded_outputs,
    look_alike_ids,
    markdown2html,
    released_source,
    safe_text,
    student_id_problem,
)
from autograder.nbgrader_export import CanvasExportPlugin, CsvExportPlugin, spreadsheet_safe
from autograder.notebook import IN_PROCESS_BYTES, MAX_NOTEBOOK_BYTES
from autograder.reference import REPOSITORY, nbgrader_meta, source_notebook
from autograder.results import ItemResult, NotebookResult, TestResult
from autograder.rubric import EXERCISES


def test_safe_text_shows_control_characters_as_escapes_and_keeps_the_rest():
    text = "got 'é\u00e9' \x1b[2J\x07\x00 \u202etxt.exe\nsecond line"
    assert safe_text(text) == "got 'éé' \\x1b[2J\\x07\\x00 \\u202etxt.exe\nsecond line"
    assert safe_text("x" * 1000, 50) == "x" * 47 + "..."
    # a code point above U+FFFF in eight digits: \ue0080 would read as U+E008 and a `0`
    assert safe_text("ada\U000e0080\U00013441") == "ada\\U000e0080\\U00013441"


def _item(*tests: TestResult) -> ItemResult:
    return ItemResult("test_parse_cron_field", "parse_cron_field",
                      sum(t.score for t in tests), sum(t.max_score for t in tests), list(tests))


def test_a_report_names_the_notebook_s_problem_once_instead_of_every_missing_result():
    missing = [TestResult(f"01 · parse_cron_field: case {i}", 0, 1,
                          f"parse_cron_field('{i}', 0, 59): no result: grading stopped", False)
               for i in range(30)]
    star = TestResult("01 · parse_cron_field: a star", 1, 1, "passed", True)
    text = cell_report(_item(star, *missing), ["grading stopped at the time limit of 60 s"], True)
    assert text.splitlines() == [
        "parse_cron_field: 1 / 31 points (1 of 31 hidden tests passed)",
        "  problem: grading stopped at the time limit of 60 s",
        "  30 hidden tests got no result (see the problem above)"]


def test_a_report_lists_failed_tests_with_their_message():
    text = cell_report(_item(TestResult("01 · parse_cron_field: a-b includes b", 0, 2 / 3,
                                        "parse_cron_field('1-5', 0, 59): expected [1, 2, 3, 4, "
                                        "5], got [1, 2, 3, 4]", False),
                             TestResult("01 · parse_cron_field: a star", 1, 1, "passed",
                                                True)), [], True)
    assert text.splitlines() == [
        "parse_cron_field: 1 / 1.67 points (1 of 2 hidden tests passed)",
        "  FAIL  a-b includes b (-0.67)",
        "        parse_cron_field('1-5', 0, 59): expected [1, 2, 3, 4, 5], got [1, 2, 3, 4]"]


@pytest.mark.parametrize("points", [0.0, 12.5, 25.0])
def test_nbgrader_reads_the_points_from_the_outputs(points):
    cell = nbformat.v4.new_code_cell("# Hidden tests for parse_cron_field")
    cell.metadata["nbgrader"] = {"grade": True, "grade_id": "test_parse_cron_field",
                                 "points": 25, "solution": False, "locked": True}
    cell.outputs = graded_outputs("parse_cron_field: ... points\n", points)
    assert utils.determine_grade(cell) == (points, 25.0)


@pytest.mark.parametrize("exercise", EXERCISES, ids=lambda e: e.notebook)
def test_a_grade_cell_s_released_text_is_what_students_receive(exercise):
    """SanitizeCells restores a grade cell silently only when its text is exactly this."""
    released = {nbgrader_meta(cell)["grade_id"]: cell.source
                for cell in fixtures.released_notebook(exercise).cells
                if nbgrader_meta(cell).get("grade")}
    for cell in source_notebook(exercise).cells:
        meta = nbgrader_meta(cell)
        if meta.get("grade"):
            shown = released_source(cell.source)
            assert shown == released[meta["grade_id"]]
            assert "autograder" not in shown and "grade_cell" not in shown
    assert len(released) == len(exercise.items)


@pytest.mark.parametrize("seconds,penalty", [(1, 5.0), (86400, 5.0), (47 * 3600, 10.0),
                                             (3 * 86400 + 1, 20.0), (30 * 86400, 50.0)])
def test_percent_per_day_takes_a_share_of_the_score_per_started_day(seconds, penalty):
    assert PercentPerDayLate(percent_per_day=10).late_submission_penalty("ada", 50.0,
                                                                         seconds) == penalty


def test_percent_per_day_leaves_on_time_and_empty_work_alone():
    plugin = PercentPerDayLate()
    assert plugin.late_submission_penalty("ada", 50.0, 0) is None
    assert plugin.late_submission_penalty("ada", 0.0, 3600) is None


def test_spreadsheet_formulas_in_names_are_neutralised():
    assert spreadsheet_safe("=HYPERLINK(\"x\")") == "'=HYPERLINK(\"x\")"
    assert [spreadsheet_safe(v) for v in ("+1", "-1", "@a", "ada", None)] == \
        ["'+1", "'-1", "'@a", "ada", ""]
    assert spreadsheet_safe("a\nb\x00") == "a b "



class _Graded(SandboxedGrading):
    """SandboxedGrading with a fixed result instead of a sandbox run."""

    result: NotebookResult

    def grade(self, resources: dict) -> NotebookResult:
        return self.result


def _grade_cell(grade_id: str, source: str) -> nbformat.NotebookNode:
    cell = nbformat.v4.new_code_cell(source)
    cell.metadata["nbgrader"] = {"grade": True, "grade_id": grade_id, "points": 5,
                                 "solution": False, "locked": True, "schema_version": 3}
    return cell


def test_points_land_in_each_grade_cell_once_and_lost_cells_come_back():
    capstone = next(e for e in EXERCISES if e.notebook == "07_safe_scheduler")
    first, second, *rest = capstone.items
    items = [ItemResult(item.grade_id, item.title, 2.5, item.points, [])
             for item in capstone.items]
    step = _Graded()
    step.result = NotebookResult("07_safe_scheduler.ipynb", capstone.notebook,
                                         capstone.assignment, 12.5, 25.0, items,
                                         problems=["the notebook printed 1 MiB"])
    hidden = "# Hidden tests\n### BEGIN HIDDEN TESTS\nfrom autograder.in_kernel import x\n" \
             "### END HIDDEN TESTS"
    notebook = nbformat.v4.new_notebook(cells=[
        _grade_cell(first.grade_id, hidden), _grade_cell(first.grade_id, "# a copy"),
        _grade_cell("test_bonus", "print('bonus')"), _grade_cell(second.grade_id, hidden)])
    notebook, _ = step.preprocess(notebook, {"nbgrader": {
        "student": "ada", "assignment": "capstone", "notebook": capstone.notebook}})
    graded = [(cell.metadata["nbgrader"]["grade_id"], utils.determine_grade(cell)[0])
              for cell in notebook.cells if utils.is_grade(cell)]
    assert graded == [(item.grade_id, 2.5) for item in [first, second, *rest]]
    assert notebook.cells[0].source == "# Hidden tests"
    assert "the notebook printed 1 MiB" in notebook.cells[0].outputs[0].text
    assert "problem" not in notebook.cells[3].outputs[0].text, "problems are shown once"
    assert "second copy" in notebook.cells[1].outputs[0].text
    assert "not graded" in notebook.cells[2].outputs[0].text


# -- CheckMetadata: nbgrader's metadata check, its schema compiled once ---------------------

_VALUES = st.one_of(st.none(), st.booleans(), st.integers(-2, 5), st.floats(allow_nan=False),
                    st.text(max_size=4), st.lists(st.integers(0, 3), max_size=2),
                    st.dictionaries(st.text(max_size=2), st.integers(), max_size=1))
_KEYS = ("grade", "solution", "locked", "task", "grade_id", "points", "schema_version",
         "cell_type")
_METADATA = st.dictionaries(st.sampled_from(_KEYS), _VALUES).map(
    lambda meta: {"grade": False, "solution": False, "locked": False, "grade_id": "cell",
                  "schema_version": 3, **meta})


def _outcome(validator: object, notebook: nbformat.NotebookNode) -> tuple[str, str]:
    try:
        validator.validate_nb(copy.deepcopy(notebook))  # type: ignore[attr-defined]
    except Exception as error:  # noqa: BLE001 - compared, whatever it is
        return type(error).__name__, str(error)
    return "accepted", ""


@settings(max_examples=300, deadline=None)
@given(cells=st.lists(st.tuples(st.sampled_from(["code", "markdown"]), _METADATA),
                      min_size=1, max_size=3))
def test_check_metadata_decides_exactly_as_nbgrader_s_check(cells):
    notebook = nbformat.v4.new_notebook()
    for kind, meta in cells:
        cell = nbformat.v4.new_code_cell("x = 1") if kind == "code" \
            else nbformat.v4.new_markdown_cell("text")
        cell.metadata["nbgrader"] = meta
        notebook.cells.append(cell)
    assert _outcome(CompiledMetadataValidator(), notebook) == \
        _outcome(MetadataValidator(), notebook)


@pytest.mark.parametrize("exercise", EXERCISES, ids=lambda e: e.notebook)
def test_check_metadata_passes_the_course_s_notebooks_and_refuses_corrupted_metadata(exercise):
    notebook = source_notebook(exercise)
    assert CheckMetadata().preprocess(notebook, {})[0] is notebook
    graded = next(c for c in notebook.cells if nbgrader_meta(c).get("grade"))
    graded.metadata["nbgrader"]["points"] = "all of them"
    with pytest.raises(ValidationError, match="metadata may be corrupted"):
        CheckMetadata().preprocess(notebook, {})


# -- what a student controls that nbgrader would use unescaped -------------------------------

@pytest.mark.fast
@pytest.mark.parametrize("student, words", [
    ("new\nline", "control or format character"),
    ("esc\x1b[31mred", "control or format character"),
    ("<img src=x onerror=alert(1)>", "HTML reads as markup"),
    ("o'brien", "HTML reads as markup"),
    ("ad[a]", "glob character"),
    (os.fsdecode(b"zo\xeb"), "not named in UTF-8"),
])
def test_a_student_id_nbgrader_would_mishandle_is_refused_in_one_sentence(student, words):
    problem = student_id_problem(student)
    assert problem is not None and words in problem and problem.endswith("to grade it")
    assert problem.isprintable() and problem.count(". ") == 0


@pytest.mark.fast
@pytest.mark.parametrize("student", ["ada", "Zoë Martin", "ada,,,,0,0,0,50", "=2+5", "-1"])
def test_other_student_ids_are_graded(student):
    assert student_id_problem(student) is None


NFD, NFC = "Jose\u0301", "Jos\u00e9"  # `José` as a zip made on a Mac holds it, and as typed


@pytest.mark.fast
def test_a_student_id_in_nfd_is_named_with_the_gradebook_student_it_is_in_nfc():
    """nbgrader creates a student for the Mac's `Jose` + U+0301 beside the `José` the
    instructor added (one letter), and Formgrader shows the two alike: one sentence names
    both in code points, and says which gradebook student the id is in NFC."""
    assert look_alike_ids([NFD, "ada"], [NFC, "bo"]) == [
        f"The student id '{NFD}' (Jose\\u0301) is not in Unicode's normal form NFC (a zip "
        "made on a Mac writes accents as characters of their own) and reads like the "
        f"gradebook's student '{NFC}' (Jos\\u00e9) (the same id in NFC): nbgrader grades it as "
        "a student of its own; Formgrader lists them as students that read alike, so check "
        "that each is the right student"]
    assert look_alike_ids([NFD]) == [
        f"The student id '{NFD}' (Jose\\u0301) is not in Unicode's normal form NFC (a zip "
        "made on a Mac writes accents as characters of their own): nbgrader grades it as a "
        f"student of its own, apart from any student added as '{NFC}' (Jos\\u00e9)"]


@pytest.mark.fast
def test_student_ids_that_read_alike_are_named_and_the_rest_are_not():
    """`Ada` beside the folder ada, fullwidth `ａｄａ` beside the gradebook's ada: a sentence
    for each id graded now (never the gradebook's own), naming the other in code points where
    a terminal shows them alike; ids that merely share letters, and ids in NFC that read like
    nothing, get none."""
    wide = "\uff41\uff44\uff41"
    sentences = look_alike_ids(["Ada", "ada", wide, "bob", NFC], ["ada", "Bo", "ZZ"])
    assert [sentence.split(" reads like ")[0] for sentence in sentences] == [
        "The student id 'Ada'", "The student id 'ada'",
        f"The student id '{wide}' (\\uff41\\uff44\\uff41)"]
    assert sentences[0].startswith("The student id 'Ada' reads like the student id 'ada', "
                                   f"the student id '{wide}' (\\uff41\\uff44\\uff41):")
    assert all(sentence.isprintable() and sentence.count(": ") == 1 for sentence in sentences)
    assert look_alike_ids(["ada", "bob", NFC], ["Bo", "ZZ"]) == []
    cyrillic = "\u0430da"  # a Cyrillic `а`: no case folding or normal form makes it Latin
    assert look_alike_ids([cyrillic, "bob"], ["ada"]) == [
        f"The student id '{cyrillic}' (\\u0430da) reads like the gradebook's student 'ada': "
        "nbgrader grades it as a student of its own; Formgrader lists them as students that "
        "read alike, so check that each is the right student"]


@pytest.mark.fast
def test_a_student_id_ending_in_the_braille_blank_reads_like_the_one_without():
    """`ada` and U+2800 BRAILLE PATTERN BLANK prints as `ada `: nbgrader's log names that id
    beside the gradebook's ada, with the blank as an escape, and shows it so in any message."""
    assert look_alike_ids(["ada\u2800", "bob"], ["ada"]) == [
        "The student id 'ada\\u2800' (ada\\u2800) reads like the gradebook's student 'ada': "
        "nbgrader grades it as a student of its own; Formgrader lists them as students that "
        "read alike, so check that each is the right student"]
    assert safe_text("Copying ada\u2800/x.csv") == "Copying ada\\u2800/x.csv"


@pytest.mark.fast
def test_a_sentence_names_a_few_look_alikes_and_counts_the_rest():
    """Eight spellings of one name in one class: each sentence names MAX_NAMES_SHOWN of the
    seven others and counts the rest, so one class cannot fill the log."""
    spellings = ["".join(letter.upper() if bit else letter for letter, bit in
                         zip("ada", ((number >> 2) & 1, (number >> 1) & 1, number & 1),
                             strict=True)) for number in range(8)]
    sentences = look_alike_ids(spellings)
    assert len(sentences) == 8
    more = 7 - MAX_NAMES_SHOWN
    assert all(sentence.count("'") == 2 * (MAX_NAMES_SHOWN + 1) for sentence in sentences)
    assert all(f" and {more} more: " in sentence for sentence in sentences)


@pytest.mark.fast
def test_nbgrader_s_log_shows_a_submission_s_control_characters_as_escapes():
    """nbgrader logs the name of a file beside the notebooks ("Copying ...") and nbformat a
    cell's type ("Failed validating ... in ..._cell") raw: with PrintableLog on the handler,
    a terminal escape, a bidirectional override and a title-setting sequence are shown as
    escapes, in the message, its arguments and a traceback; line breaks stay."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.addFilter(PrintableLog())
    logger = logging.getLogger("test-printable-log")
    logger.addHandler(handler)
    logger.propagate = False
    try:
        logger.warning("Copying %s -> %s", "\x1b[2J\x1b[31mFAKE.txt", "done")
        try:
            raise ValueError("in \x1b[31mred\u202e_cell")
        except ValueError:
            logger.exception("Notebook JSON is invalid:\n%s", "\x1b]0;title\x07")
    finally:
        logger.removeHandler(handler)
    text = stream.getvalue()
    assert "Copying \\x1b[2J\\x1b[31mFAKE.txt -> done" in text, text
    assert "in \\x1b[31mred\\u202e_cell" in text and "\\x1b]0;title\\x07" in text, text
    assert "Traceback" in text and "invalid:\n" in text
    assert all(char == "\n" or char.isprintable() for char in text), text


@pytest.mark.fast
def test_a_grade_id_with_terminal_escapes_loses_its_nbgrader_metadata_before_nbgrader_logs_it(
        caplog):
    escaped = _grade_cell("\x1b[2J\x1b[31mFAKE: all students 0 points\x1b[0m", "x = 1")
    kept = _grade_cell("test_parse_cron_field", "# Hidden tests")
    notebook = nbformat.v4.new_notebook(cells=[escaped, kept])
    step = PrintableIds()
    with caplog.at_level("WARNING"):
        notebook, _ = step.preprocess(notebook, {})
    assert "nbgrader" not in notebook.cells[0].metadata
    assert notebook.cells[1].metadata["nbgrader"]["grade_id"] == "test_parse_cron_field"
    assert "\\e[2J\\e[31mFAKE" in caplog.text and "\x1b" not in caplog.text


@pytest.mark.fast
def test_the_files_beside_a_submission_s_notebooks_are_copied_up_to_a_cap_in_all(tmp_path,
                                                                                caplog):
    """nbgrader copied every file beside the notebooks into autograded/ (and feedback/), each
    up to 50 MiB but without a cap on their sum or number: large sparse files or thousands of
    small ones in one submission could fill the instructor's disk. Now the files are copied by
    name while they fit in the cap, and one escaped sentence of the log names the rest."""
    source, dest = tmp_path / "submitted" / "ada" / "schedules", tmp_path / "autograded"
    (source / "many").mkdir(parents=True)
    for number in range(3):  # sparse: 60 MiB that take no room until copied
        with open(source / f"big-\x1b[31m{number}.bin", "wb") as handle:
            handle.truncate(20 * 2**20)
    (source / "data.csv").write_text("minute,hour\n0,9\n")
    for number in range(MAX_COPIED_FILES):
        (source / "many" / f"{number:05d}.txt").write_text("x")
    converter = SimpleNamespace(
        _format_source=lambda assignment, student: str(source),
        _format_dest=lambda assignment, student: str(dest),
        coursedir=SimpleNamespace(ignore=[], root=str(tmp_path)),
        log=logging.getLogger("test-copy-cap"))
    with caplog.at_level("INFO", logger="test-copy-cap"):
        _copy_own_files(converter, "schedules", "ada")
    copied = [path for path in dest.rglob("*") if path.is_file()]
    assert len(copied) == MAX_COPIED_FILES
    assert sum(path.stat().st_size for path in copied) <= MAX_COPIED_BYTES
    assert (dest / "data.csv").read_text() == "minute,hour\n0,9\n"  # it fits after a big one
    said = [record.getMessage() for record in caplog.records if record.levelname == "WARNING"]
    assert len(said) == 1, said
    assert said[0].startswith("Not copying 4 files beside the notebooks of "
                              "submitted/ada/schedules into autograded (20.0 MiB): up to 50 MiB "
                              "and 2000 files of each submission are copied"), said[0]
    assert "left out: big-\\x1b[31m2.bin, many/01997.txt" in said[0], said[0]
    assert "\x1b" not in said[0]


class _Sanitizing(Configurable):
    _sanitizing = True


def _exported(path) -> tuple[nbformat.NotebookNode, str]:
    exporter = SandboxedExporter(parent=_Sanitizing())
    text, _ = exporter.from_filename(str(path), {"nbgrader": {}})
    notebook = nbformat.reads(text, as_version=4)
    return notebook, notebook.metadata.get(UNREADABLE, "")


@pytest.mark.fast
def test_a_submitted_notebook_larger_than_grade_batch_reads_is_not_read(tmp_path):
    path = tmp_path / "01_parse_cron_field.ipynb"
    with open(path, "wb") as handle:
        handle.truncate(MAX_NOTEBOOK_BYTES + 1)  # sparse: nbformat would read it whole
    notebook, why = _exported(path)
    assert not notebook.cells and "larger than 20 MiB" in why


def _with_empty_objects(count: int) -> str:
    """The stub of 01, one of whose outputs holds `count` empty JSON objects in its metadata."""
    notebook = fixtures.stub_submission(EXERCISES[0])
    cell = nbformat.v4.new_code_cell("x = 1")
    cell.outputs = [nbformat.v4.new_output("display_data", data={"text/plain": "1"},
                                           metadata={"filler": "FILLER"})]
    notebook.cells.append(cell)
    return nbformat.writes(notebook).replace('"FILLER"', "[" + "{}," * (count - 1) + "{}]")


@pytest.mark.fast
@pytest.mark.parametrize("count", [300_000, 2_000_000], ids=["read-here", "read-by-a-child"])
def test_a_submitted_notebook_of_too_many_json_values_is_not_read_by_nbformat(tmp_path, count):
    """nbformat keeps and validates every JSON value of a notebook, at about 500 bytes each:
    19 MiB of empty objects in an output's metadata took nbgrader's process to 3.4 GB and 18 s
    of CPU, and these 0.9 and 6 MB to about 200 MiB and 1 GB. The values are counted within
    grade-batch's bounds for reading a notebook (a file over 1 MiB by a child process), and
    nbgrader gets an empty notebook with the reason; the grader grades the file itself."""
    import tracemalloc

    path = tmp_path / "01_parse_cron_field.ipynb"
    path.write_text(_with_empty_objects(count))
    assert (path.stat().st_size <= IN_PROCESS_BYTES) == (count == 300_000)
    tracemalloc.start()
    try:
        notebook, why = _exported(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert not notebook.cells
    assert f"holds more than {MAX_NOTEBOOK_VALUES:,} JSON values" in why
    assert peak < 48 * 2**20, f"{peak / 2**20:.0f} MiB"


@pytest.mark.fast
def test_a_submitted_notebook_of_a_handed_in_lab_s_values_is_read_whole(tmp_path):
    path = tmp_path / "01_parse_cron_field.ipynb"
    path.write_text(_with_empty_objects(10_000))
    notebook, why = _exported(path)
    assert not why and len(notebook.cells) == len(fixtures.stub_submission(EXERCISES[0]).cells) + 1


@pytest.mark.fast
def test_a_named_pipe_named_like_a_notebook_is_not_opened(tmp_path):
    """A reader of a named pipe waits for a writer for ever; here a writer stands by, so that
    opening it ends (with an empty notebook for a different reason) instead of hanging."""
    path = tmp_path / "01_parse_cron_field.ipynb"
    os.mkfifo(path)
    writer = threading.Thread(target=lambda: open(path, "wb").close(), daemon=True)
    writer.start()
    try:
        notebook, why = _exported(path)
    finally:
        # A reader held open until the writer is done lets its open end, whenever the thread
        # gets to it: a reader closed at once may come before that open, which then waits.
        reader = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        try:
            writer.join(timeout=60)
        finally:
            os.close(reader)
    assert not writer.is_alive()
    assert not notebook.cells and "not a regular file" in why


@pytest.mark.fast
def test_an_image_whose_attachment_is_missing_shows_its_alt_text():
    cell = {"cell_type": "markdown", "attachments": {}}
    shown = markdown2html({"cell": cell, "resources": {}},
                          "My chart: ![weekly <b>runs</b>](attachment:missing.png) **bold**")
    assert "weekly runs" in shown and "<img" not in shown and "<strong>bold</strong>" in shown
    present = {"cell_type": "markdown",
               "attachments": {"here.png": {"image/png": "iVBORw0KGgo="}}}
    shown = markdown2html({"cell": present, "resources": {}}, "![pic](attachment:here.png)")
    assert 'src="data:image/png;base64,iVBORw0KGgo="' in shown


def _page(notebook: nbformat.NotebookNode, name: str) -> str:
    """The page generate_feedback and Formgrader make of a notebook, with the course's config."""
    from nbconvert.exporters import HTMLExporter
    from traitlets.config.loader import PyFileConfigLoader

    config = PyFileConfigLoader("nbgrader_config.py", path=str(REPOSITORY)).load_config()
    return HTMLExporter(config=config).from_notebook_node(notebook,
                                                          {"metadata": {"name": name}})[0]


@pytest.mark.fast
def test_a_page_shows_a_bounded_part_of_a_student_s_own_cells_and_all_of_the_course_s():
    """Highlighting and sanitizing code cost a page up to 60 microseconds of CPU per character
    (1 MB of code: 59 s and 1.5 GB of the server's memory for one view in Formgrader), each
    Markdown cell about 3 ms, and attachments about 50 bytes of memory per byte: a page now
    shows a bounded part of the student's own cells, each cut with a sentence that says so,
    and every locked cell of the course whole, wherever it stands."""
    exercise = EXERCISES[0]
    released = fixtures.stub_submission(exercise)
    pictures = nbformat.v4.new_markdown_cell("".join(f"![figure {name}](attachment:{name}.png)"
                                                     for name in "abc"))
    data = "A" * (MAX_PAGE_ATTACHMENTS * 3 // 8)  # three of them do not fit, two do
    pictures.attachments = {name + ".png": {"image/png": data} for name in "abc"}
    own = [nbformat.v4.new_code_cell("qzxw " * (MAX_PAGE_CODE // 5 * 4)), pictures]
    own += [nbformat.v4.new_markdown_cell(f"mnq{number}") for number in range(MAX_PAGE_CELLS)]
    page = _page(nbformat.v4.new_notebook(cells=own + released.cells), exercise.notebook)
    assert page.count("qzxw") <= MAX_PAGE_CODE // 5
    assert f"{MAX_PAGE_CODE // 5 * 4 * 5 - MAX_PAGE_CODE:,} more characters of this cell " \
        "are not shown here" in page
    assert page.count(data) == 2 and "figure c" in page
    assert "1 attachments of this cell are not shown here" in page
    assert page.count("mnq") == MAX_PAGE_CELLS - 2 and "mnq0" in page
    answers = [cell for cell in released.cells if not nbgrader_meta(cell).get("locked")]
    assert f"{len(own) + len(answers) - MAX_PAGE_CELLS} more cells of this notebook are not " \
        "shown here" in page
    headings = [cell.source.splitlines()[0].lstrip("# ") for cell in released.cells
                if cell.cell_type == "markdown" and nbgrader_meta(cell).get("locked")
                and cell.source.startswith("#")]
    headings = [heading for heading in headings if not set(heading) & set("`*_[&<")]
    assert len(headings) >= 3  # the course's own, shown whole after the budget is spent
    assert [heading for heading in headings if heading not in page] == []


# -- nbgrader export: grades.csv quoted and inert --------------------------------------------

class _Book:
    """The parts of nbgrader's Gradebook that an export plugin reads."""

    def __init__(self, ids: list[str]) -> None:
        self.assignments = [SimpleNamespace(name="schedules", duedate=None, max_score=60.0)]
        self.students = [SimpleNamespace(id=i, last_name=None, first_name=None, email=None,
                                         lms_user_id=None) for i in ids]

    def find_submission(self, assignment: str, student: str) -> SimpleNamespace:
        if student == "ada":
            return SimpleNamespace(timestamp=None, score=50.0, late_submission_penalty=0.0)
        raise MissingEntry()


@pytest.mark.fast
def test_nbgrader_s_grades_csv_quotes_every_field_and_runs_no_formula():
    ids = ["ada", "=2+5", "@SUM(A1)", "-1", "ada,,,,0,0,0,50", '=HYPERLINK("x")', "\tbo"]
    text = CsvExportPlugin().table(_Book(ids))
    rows = list(csv.reader(io.StringIO(text)))
    assert rows[0][3] == "student_id" and all(len(row) == 11 for row in rows)
    assert [row[3] for row in rows[1:]] == [
        "ada", "'=2+5", "'@SUM(A1)", "'-1", "ada,,,,0,0,0,50", "'=HYPERLINK(\"x\")", "\\tbo"]
    assert [row[9] for row in rows[1:] if row[3] == "ada"] == ["50.0"], "one row for ada"
    assert all(line.startswith('"') and line.endswith('"') for line in text.splitlines())


@pytest.mark.fast
def test_nbgrader_s_exports_give_every_student_id_a_cell_of_its_own():
    """Ids that `nbgrader autograde` grades: `ada` followed by a plain, a no-break or an
    ideographic space or by an unassigned code point was written `ada ` by both plugins (one
    SIS id for four students in Canvas's import), and `ada` with a variation selector `ada`.
    Each id now has a cell of its own, the same in every id column, and no formula."""
    ids = ["ada", "ada ", "ada\u00a0", "ada\u3000", "ada\U000e0080", "ada\ufe0f", "-ada"]
    assert [student_id_problem(student) for student in ids] == [None] * len(ids)
    rows = list(csv.reader(io.StringIO(CsvExportPlugin().table(_Book(ids)))))[1:]
    assert len({row[3] for row in rows}) == len(ids), [row[3] for row in rows]
    canvas = list(csv.reader(io.StringIO(CanvasExportPlugin().table(_Book(ids)))))[2:]
    assert len({row[2] for row in canvas}) == len(ids), [row[2] for row in canvas]
    assert all(row[0] == row[2] == row[3] for row in canvas), canvas
    assert {row[3] for row in rows} == {row[2] for row in canvas}
    assert {"ada", "ada\\U000e0080", "ada\\ufe0f", "'-ada"} <= {row[3] for row in rows}


@pytest.mark.fast
def test_the_course_s_configuration_makes_it_nbgrader_export_s_default():
    from traitlets.config.loader import PyFileConfigLoader

    config = PyFileConfigLoader("nbgrader_config.py", path=str(REPOSITORY)).load_config()
    assert config.ExportApp.plugin_class == "autograder.nbgrader_export.CsvExportPlugin"
    assert config.Autograde.sanitize_preprocessors[0] is PrintableIds
