"""`nbgrader autograde`, graded in the sandbox: the steps `nbgrader_config.py` plugs into nbgrader.

nbgrader's `Autograde` converter reads each submitted notebook twice: a *sanitize* chain of
preprocessors writes a clean copy into `autograded/`, then an *autograde* chain grades that
copy. Out of the box the autograde chain runs the student's code and the hidden tests in one
kernel, where student code can reach (and fake) everything. This module provides the
replacements that make nbgrader's gradebook carry the scores of `python -m autograder`:

- `SandboxedGrading` replaces nbgrader's `Execute`: it grades the submitted file with
  `grading.grade_safely` (the same sandbox, suites and limits as `grade-batch`) and writes each
  grade cell's points where nbgrader's `SaveAutoGrades` reads them, the partial-credit value of
  the cell, after a short report of what failed. No student code runs in nbgrader's process or
  in a kernel. The grade cells keep the text students were given (no hidden-test code).
- `PrintableIds` comes first in the sanitize chain: nbgrader metadata whose `grade_id` holds
  a control character (a terminal escape) is removed before nbgrader prints the id, and
  `PrintableLog` shows as escapes the control characters of whatever else nbgrader or
  nbformat logs (a file's name, a cell's type).
- `SanitizeCells` replaces nbgrader's `OverwriteCells`: a grade cell whose text is exactly the
  released one (nbgrader removed its hidden tests) is restored without the "checksum has
  changed" warning, so the warning is left for cells a student really changed.
- `LatePenalties` replaces nbgrader's `AssignLatePenalties`: it first writes the due dates set
  in `nbgrader_config.py` into the gradebook, then lets nbgrader's late-submission plugin
  (`c.AssignLatePenalties.plugin_class`) decide the penalty. `PercentPerDayLate` is one such
  plugin.
- `CheckMetadata` replaces nbgrader's `CheckCellMetadata` in both chains: the same checks and
  errors, with nbgrader's JSON schema compiled once instead of checked again for every cell
  (a sixth of `nbgrader autograde`'s own time went to checking the schema itself).
- `SandboxedExporter` is the converter's exporter: a notebook nbgrader cannot read or sanitize
  (not JSON, broken metadata) becomes an empty notebook, and so does one that is not a
  regular file or is larger than grade-batch reads (checked before a byte of it is read), so
  its grade cells still get 0 points and a reason and the student's other notebooks are kept,
  instead of nbgrader removing the whole submission or waiting for ever on a named pipe.
- `InertMarkdown`, a preprocessor of every HTMLExporter (the feedback pages, Formgrader's view
  of a submission): HTML a student writes in a Markdown or raw cell is shown as text, never
  run on the page (nbgrader's templates render Markdown without nbconvert's sanitizer); and
  `markdown2html`, their Markdown filter, which leaves no link or image address that runs code
  (`javascript:` and the like, however it is spelled).
- `guard_submissions`, called by `nbgrader_config.py`, makes nbgrader read a submission the
  way `grade-batch` does, where nbgrader has no setting for it: a student or assignment folder
  that is a symbolic link (another student's work) fails that submission with one sentence; a
  student id nbgrader would mishandle (glob characters: `ad[a]` matches `ada`'s files; a line
  break, which stops nbgrader's whole batch; a terminal escape; HTML that Formgrader shows
  unescaped; a name that is not UTF-8) is not graded, with one sentence in the log, and
  neither is a hidden folder (`.ada`), which nbgrader would pass over in silence; of the files
  beside the notebooks, only regular files of the student's own are copied into `autograded/`
  (never what a link points to: a solution, the gradebook, `/dev/zero`), up to
  MAX_COPIED_BYTES and MAX_COPIED_FILES per submission, the rest named in the log, and into
  `feedback/` only nbgrader's own BOOKKEEPING beside the pages it generates (a student's
  `index.html` would pass for the course's feedback), the rest named in the log; and
  `timestamp.txt` is read only as a small regular file, and text in it that names no time
  fails that submission in one sentence (never quoted raw in nbgrader's log). `nbgrader
  autograde` also warns, in one sentence each, of a student id not in Unicode's normal form
  NFC or one that reads like another's, graded now or in the gradebook (`look_alike_ids`):
  nbgrader makes each a student of its own, which Formgrader shows alike.
"""

from __future__ import annotations

import glob
import html
import logging
import math
import os
import re
import shutil
import stat
import threading
import traceback
import unicodedata
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import jinja2
import jsonschema
import nbformat
from nbconvert.exporters import NotebookExporter
from nbconvert.filters.markdown_mistune import MISTUNE_V3, IPythonRenderer, MarkdownWithMath
from nbconvert.preprocessors import Preprocessor
from nbformat.notebooknode import NotebookNode
from nbgrader import utils
from nbgrader.api import Gradebook, MissingEntry
from nbgrader.converters import Autograde, BaseConverter, GenerateFeedback
from nbgrader.converters.base import NbGraderException
from nbgrader.coursedir import CourseDirectory
from nbgrader.nbgraderformat import MetadataValidator, ValidationError
from nbgrader.nbgraderformat.common import (
    BaseMetadataValidator,
    SchemaTooNewError,
    SchemaTooOldError,
)
from nbgrader.plugins import LateSubmissionPlugin
from nbgrader.preprocessors import (
    AssignLatePenalties,
    CheckCellMetadata,
    ClearHiddenTests,
    NbGraderPreprocessor,
    OverwriteCells,
)
from traitlets import Dict, Enum, Float, Integer, Unicode

from . import escape, grading, isolation, processes
from .discovery import IGNORED, MAX_ENTRIES, is_utf8, look_alikes
from .notebook import MAX_NOTEBOOK_BYTES, NotebookError, NotebookRefused, count_values
from .reference import REPOSITORY, nbgrader_meta, plain_cells
from .results import ItemResult, NotebookResult
from .rubric import exercise_for

MAX_FAILURES_SHOWN = 12  # per grade cell; the report of grade-batch lists them all
MAX_MESSAGE = 400  # characters of one failure message
MAX_PROBLEMS_SHOWN = 5
# JSON values of a submitted notebook that nbgrader is given to read (each costs nbformat about
# 500 bytes, so at most about 100 MiB); a handed-in lab holds about 4,000.
MAX_NOTEBOOK_VALUES = 200_000
NO_RESULT = "no result:"  # scoring.score_run's words for a test the run never reached
UNWRITTEN = "got NotImplementedError"
UNREADABLE = "sandboxed_unreadable"  # notebook metadata SandboxedExporter leaves for grading

_lock = threading.Lock()
_sandboxes: dict[str, isolation.Isolation] = {}


# -- text that reaches the gradebook and feedback -----------------------------------------

def safe_text(text: str, limit: int | None = MAX_MESSAGE) -> str:
    """`text` with every control and formatting character (terminal escapes, bidi overrides,
    NUL) and every character no one sees (`escape.shown_as_escape`) shown as an escape
    (`escape.hex_escape`: `\\x1b`, `\\u202e`), line breaks kept, cut to `limit` characters
    (None: never cut)."""
    joined = escape.escaped(str(text), escape.hex_escape, kept="\n")
    return joined if limit is None or len(joined) <= limit else joined[:limit - 3] + "..."


def cell_report(item: ItemResult, problems: list[str], readable: bool) -> str:
    """What a grade cell shows in the autograded and feedback notebooks: its points, the
    notebook's problems (a time-out, an exit, a damaged file), then each failed test."""
    passed = sum(test.passed for test in item.tests)
    how = f"{passed} of {len(item.tests)} hidden tests passed" if readable else "not graded"
    lines = [safe_text(f"{item.title}: {_points(item.score)} / {_points(item.max_score)} "
                       f"points ({how})")]
    for problem in problems[:MAX_PROBLEMS_SHOWN]:
        lines.append("  problem: " + safe_text(problem).replace("\n", " "))
    if len(problems) > MAX_PROBLEMS_SHOWN:
        lines.append(f"  ... and {len(problems) - MAX_PROBLEMS_SHOWN} more problems")
    failed = [test for test in item.tests if not test.passed]
    if not readable or not failed:
        return "\n".join(lines) + "\n"
    if all(NO_RESULT in test.output for test in failed):
        lines.append(f"  {len(failed)} hidden tests got no result (see the problem above)")
    elif all(UNWRITTEN in test.output for test in failed) and len(failed) == len(item.tests):
        lines.append(f"  not written yet: all {len(failed)} hidden tests got "
                     "NotImplementedError, the untouched stub's answer")
    else:
        for test in failed[:MAX_FAILURES_SHOWN]:
            name = test.name.split(": ", 1)[-1] if ": " in test.name else test.name
            lines.append(f"  FAIL  {safe_text(name, 200)} (-{_points(test.max_score)})")
            lines.append("        " + safe_text(test.output).replace("\n", "\n        "))
        if len(failed) > MAX_FAILURES_SHOWN:
            lines.append(f"  ... and {len(failed) - MAX_FAILURES_SHOWN} more failed tests")
    return "\n".join(lines) + "\n"


def _points(value: float) -> str:
    return f"{round(value, 2):g}"


def graded_outputs(report: str, points: float) -> list[NotebookNode]:
    """The outputs nbgrader reads a grade cell's points from: the report, then the points as
    the cell's value (nbgrader's partial credit)."""
    return [nbformat.v4.new_output("stream", name="stdout", text=report),
            nbformat.v4.new_output("execute_result", data={"text/plain": repr(float(points))},
                                   execution_count=None)]


def released_source(source: str, parent: Any = None) -> str:
    """A grade cell's text as students receive it: nbgrader's hidden-test region removed."""
    cell = nbformat.v4.new_code_cell(source)
    try:
        ClearHiddenTests(parent=parent)._remove_hidden_test_region(cell)
    except RuntimeError:  # unbalanced markers: show nothing of it
        return ""
    return cell.source


def _course_directory(preprocessor: Any) -> Any:
    owner = preprocessor
    while owner is not None:
        if getattr(owner, "coursedir", None) is not None:
            return owner.coursedir
        owner = getattr(owner, "parent", None)
    from nbgrader.coursedir import CourseDirectory

    return CourseDirectory(config=preprocessor.config)


# -- the autograde chain -------------------------------------------------------------------

class SandboxedGrading(NbGraderPreprocessor):
    """Grade the submitted notebook in the course's sandbox; put the points in its grade cells."""

    sandbox = Enum(("auto", "required", "off"), default_value="auto",
                   help="auto: bubblewrap if it works, else reduced isolation with a warning; "
                        "required: refuse to grade without bubblewrap; off: never bubblewrap, "
                        "the fallback's reduced isolation (debugging the grader only)"
                   ).tag(config=True)
    time_limit = Float(None, allow_none=True,
                       help="seconds per notebook (default: the rubric's)").tag(config=True)
    memory_limit = Integer(None, allow_none=True,
                           help="MiB per notebook (default: the rubric's)").tag(config=True)

    def options(self) -> grading.Options:
        with _lock:
            if self.sandbox not in _sandboxes:
                chosen = isolation.Isolation.choose(self.sandbox)  # may raise SandboxUnavailable
                if not chosen.isolated:
                    self.log.warning(
                        "bubblewrap (bwrap) is not available: student code runs with reduced "
                        "isolation; install the Debian package bubblewrap, or set "
                        "c.SandboxedGrading.sandbox = 'required' to refuse")
                    processes.become_subreaper()
                _sandboxes[self.sandbox] = chosen
        return grading.Options(isolation=_sandboxes[self.sandbox], time_limit=self.time_limit,
                               memory_limit_mb=self.memory_limit, processes=64,
                               private=(os.path.realpath(_course_directory(self).root),))

    def grade(self, resources: dict) -> NotebookResult:
        ids = resources["nbgrader"]
        coursedir = _course_directory(self)
        folder = Path(coursedir.format_path(coursedir.submitted_directory, ids["student"],
                                            ids["assignment"]))
        path = folder / f"{ids['notebook']}.ipynb"
        exercise = exercise_for(path.name)
        for problem in grading.prepare((exercise,) if exercise else ()):
            self.log.error("%s", problem)
        return grading.grade_safely(path, self.options(), shown_as=path.name, within=folder)

    def preprocess(self, nb: NotebookNode, resources: dict) -> tuple[NotebookNode, dict]:
        ids = resources["nbgrader"]
        result = self.grade(resources)
        unreadable = nb.metadata.pop(UNREADABLE, None)
        if unreadable and result.readable:
            # nbgrader could not read or sanitize it, our grader could: say why it looks empty
            result.problems.insert(0, "nbgrader could not process this notebook "
                                      f"({safe_text(str(unreadable), 200)}), so its cells are "
                                      "not shown here; it was graded from the submitted file")
        self.log.info("%s/%s/%s: %s / %s points in the sandbox", ids["student"],
                      ids["assignment"], ids["notebook"], result.score, result.max_score)
        if result.grader_failed:  # not the student's doing: say so where the instructor looks
            self.log.error("%s/%s/%s: %s; autograde it again with --force once this is fixed",
                           ids["student"], ids["assignment"], ids["notebook"],
                           safe_text(result.problems[0] if result.problems else "", 300))
        items = {item.grade_id: item for item in result.items}
        problems = list(result.problems)
        written: set[str] = set()
        for cell in nb.cells:
            if not utils.is_grade(cell):
                continue
            grade_id = cell.metadata.nbgrader.get("grade_id")
            cell.source = released_source(cell.source, self)
            item = items.get(grade_id)
            if cell.cell_type != "code":
                continue  # a manually graded answer: nbgrader leaves it for the instructor
            if item is None or grade_id in written:
                # not a grade cell of this exercise, or a copy: nbgrader must not record it
                why = "this cell is not graded by the course's grader" if item is None else \
                    "a second copy of a grade cell earns nothing"
                del cell.metadata["nbgrader"]
                cell.outputs = [nbformat.v4.new_output("stream", name="stdout",
                                                       text=safe_text(why) + "\n")]
                continue
            cell.outputs = graded_outputs(cell_report(item, problems, result.readable),
                                          item.score)
            cell.execution_count = None
            written.add(grade_id)
            problems = []  # the notebook's problems are shown once, in its first grade cell
        exercise = exercise_for(ids["notebook"])
        for item in result.items:
            if item.grade_id not in written and exercise is not None:
                nb.cells.append(self._restored_grade_cell(item, problems, result.readable))
                problems = []
        return nb, resources

    def _restored_grade_cell(self, item: ItemResult, problems: list[str],
                             readable: bool) -> NotebookNode:
        """A grade cell the submission lost (deleted, or the file was unreadable), holding
        its points, so the gradebook records them instead of leaving the grade empty."""
        cell = nbformat.v4.new_code_cell(
            f"# Hidden tests for {item.title} (this grade cell was missing from the "
            "submission and was added back by the grader).")
        cell.metadata["nbgrader"] = {"grade": True, "grade_id": item.grade_id, "locked": True,
                                     "points": item.max_score, "solution": False,
                                     "schema_version": 3}
        cell.metadata["nbgrader"]["checksum"] = utils.compute_checksum(cell)
        cell.metadata["nbgrader"]["cell_type"] = "code"
        cell.outputs = graded_outputs(cell_report(item, problems, readable), item.score)
        return MetadataValidator().upgrade_cell_metadata(cell)


class PrintableIds(NbGraderPreprocessor):
    """The first step of the sanitize chain: a cell whose `grade_id` holds a control or format
    character (a terminal escape, a line break) is not a cell of the course, whose ids are
    plain words; its nbgrader metadata is removed before nbgrader's own steps print the id
    raw in their warnings ("Cell '...' does not exist in the database")."""

    def preprocess_cell(self, cell: NotebookNode, resources: dict,
                        index: int) -> tuple[NotebookNode, dict]:
        meta = cell.metadata.get("nbgrader")
        grade_id = meta.get("grade_id") if isinstance(meta, dict) else None
        if isinstance(grade_id, str) and any(
                unicodedata.category(char) in escape.SHOWN_AS_ESCAPES for char in grade_id):
            self.log.warning("Cell %d has the grade_id '%s', with a control or format "
                             "character, which no cell of the course has; its nbgrader "
                             "metadata was removed", index, escape.one_line(grade_id, 200))
            del cell.metadata["nbgrader"]
        return cell, resources


class LatePenalties(AssignLatePenalties):
    """nbgrader's late penalties, with the due dates written in `nbgrader_config.py`."""

    due_dates = Dict(key_trait=Unicode(), value_trait=Unicode(),
                     help="assignment -> due date, for example {'schedules': '2026-03-06 "
                          "17:00:00 Europe/London'}; written into the gradebook before "
                          "nbgrader computes how late each submission is").tag(config=True)

    def preprocess(self, nb: NotebookNode, resources: dict) -> tuple[NotebookNode, dict]:
        assignment = resources["nbgrader"]["assignment"]
        due = self.due_dates.get(assignment)
        if due:
            with Gradebook(resources["nbgrader"]["db_url"]) as book:
                book.update_or_create_assignment(assignment, duedate=due)
        return super().preprocess(nb, resources)


class PercentPerDayLate(LateSubmissionPlugin):
    """A late-submission plugin: a share of the notebook's score per started day late."""

    percent_per_day = Float(10.0, help="percent of the score lost per started day late "
                                       "(100 or more: late work earns nothing)").tag(config=True)

    def late_submission_penalty(self, student_id: str, score: float,
                                total_seconds_late: float) -> float | None:
        if total_seconds_late <= 0 or not score:
            return None
        days = math.ceil(total_seconds_late / 86400)
        return round(score * min(1.0, days * self.percent_per_day / 100), 2)


# -- the sanitize chain --------------------------------------------------------------------

class SanitizeCells(OverwriteCells):
    """nbgrader's `OverwriteCells`, quiet about grade cells that are exactly as released."""

    def preprocess_cell(self, cell: NotebookNode, resources: dict,
                        cell_index: int) -> tuple[NotebookNode, dict]:
        meta = cell.metadata.get("nbgrader", {})
        grade_id = meta.get("grade_id") if isinstance(meta, dict) else None
        if isinstance(grade_id, str):
            try:
                source_cell = self.gradebook.find_source_cell(grade_id, self.notebook_id,
                                                              self.assignment_id)
            except MissingEntry:
                source_cell = None
            if source_cell is not None and source_cell.locked and \
                    cell.cell_type == source_cell.cell_type and \
                    cell.source != source_cell.source and \
                    cell.source == released_source(source_cell.source, self):
                cell.source = source_cell.source
        return super().preprocess_cell(cell, resources, cell_index)


def _check_notebook_file(filename: str) -> None:
    """Refuse, before nbformat opens it, a submitted notebook that is not a regular file of at
    most grade-batch's size limit: nbgrader would read whatever a link points to (a solution,
    say) into autograded/, wait for ever on a named pipe, and read a sparse file whole. Refuse
    too one of more than MAX_NOTEBOOK_VALUES JSON values, counted within grade-batch's bounds
    for reading a notebook: nbformat keeps and validates every value, at about 500 bytes each
    (19 MiB of empty objects in an output took nbgrader's process to 3.4 GB and 18 s of CPU).
    A file that is not JSON is left to nbformat, which says why."""
    status = os.lstat(filename)
    if stat.S_ISLNK(status.st_mode):
        raise OSError("the submitted file is a symbolic link")
    if not stat.S_ISREG(status.st_mode):
        raise OSError("the submitted file is not a regular file (a folder, a named pipe or a "
                      "device)")
    if status.st_size > MAX_NOTEBOOK_BYTES:
        raise OSError(f"the submitted file is larger than {MAX_NOTEBOOK_BYTES // 2**20} MiB")
    try:
        values = count_values(Path(filename), MAX_NOTEBOOK_VALUES)
    except NotebookRefused as error:
        raise OSError(str(error).replace(str(Path(filename)), "the submitted file")) from None
    except NotebookError:
        return
    if values > MAX_NOTEBOOK_VALUES:
        raise OSError(f"the submitted file holds more than {MAX_NOTEBOOK_VALUES:,} JSON values "
                      "(outputs, metadata, lines of text), more than nbgrader is given to read")


class SandboxedExporter(NotebookExporter):
    """The autograde converter's exporter: a notebook nbgrader cannot read or sanitize is
    replaced by an empty one, so that one notebook (not the student's whole submission) is
    affected, and `SandboxedGrading` gives it its score and the reason."""

    def from_filename(self, filename: str, resources: dict | None = None,
                      **kw: Any) -> tuple[Any, dict[str, Any]]:
        # nbconvert's Exporter declares a NotebookNode; NotebookExporter returns JSON text.
        sanitizing = getattr(self.parent, "_sanitizing", False) and resources is not None \
            and "nbgrader" in resources
        try:
            if sanitizing:
                _check_notebook_file(filename)
            return super().from_filename(filename, resources, **kw)
        except Exception as error:
            if not sanitizing:
                raise
            why = f"{type(error).__name__}: {safe_text(str(error), 200)}"
            self.log.warning("%s could not be read or sanitized (%s); grading it as an empty "
                             "notebook", os.path.basename(filename), why)
            empty = nbformat.v4.new_notebook()
            empty.metadata[UNREADABLE] = why
            return self.from_notebook_node(empty, resources, **kw)


class _CompiledSchema(BaseMetadataValidator):
    """nbgrader's own check of one cell's metadata (schema version, then the JSON schema),
    with the schema's validator built once per process. `jsonschema.validate`, which nbgrader
    calls, checks the schema itself before every cell."""

    _validators: dict[int, Any] = {}

    def validate_cell(self, cell: NotebookNode) -> None:
        if "nbgrader" not in cell.metadata:
            return
        meta = cell.metadata["nbgrader"]
        version = meta.get("schema_version", 0)
        if version < self.schema_version:
            raise SchemaTooOldError(f"Outdated schema version: {version} (expected "
                                    f"{self.schema_version})", version, self.schema_version)
        if version > self.schema_version:
            raise SchemaTooNewError(f"Schema version is too new: {version} (expected "
                                    f"{self.schema_version})", version, self.schema_version)
        validator = self._validators.get(self.schema_version)
        if validator is None:
            kind = jsonschema.validators.validator_for(self.schema)
            kind.check_schema(self.schema)
            validator = self._validators[self.schema_version] = kind(self.schema)
        error = jsonschema.exceptions.best_match(validator.iter_errors(meta))
        if error is not None:
            raise error


class CompiledMetadataValidator(MetadataValidator, _CompiledSchema):
    """nbgrader's current `MetadataValidator` (its checks of grade ids, points and cell types
    run unchanged) on top of `_CompiledSchema`."""


class CheckMetadata(CheckCellMetadata):
    """nbgrader's `CheckCellMetadata` with `CompiledMetadataValidator`: the same errors."""

    def preprocess(self, nb: NotebookNode, resources: dict) -> tuple[NotebookNode, dict]:
        try:
            CompiledMetadataValidator().validate_nb(nb)
        except ValidationError:
            self.log.error("%s", safe_text(traceback.format_exc(), 4000))  # holds cell text
            message = "Notebook failed to validate; the nbgrader metadata may be corrupted."
            self.log.error(message)
            raise ValidationError(message) from None
        return nb, resources


# -- the submission's own files -------------------------------------------------------------

GLOB_CHARACTERS = frozenset("*?[]")
HTML_CHARACTERS = frozenset("<>\"'&")
# What nbgrader copies of the files beside one submission's notebooks, in all: a few data
# files or pictures take far less, and many large (sparse) files cannot fill the disk.
MAX_COPIED_BYTES = 50 * 2**20
MAX_COPIED_FILES = MAX_ENTRIES
MAX_NAMES_SHOWN = 5  # of the files left out, in the log's one sentence
TIMESTAMP_BYTES = 1024
# What nbgrader keeps beside a submission's notebooks for itself, and reads back from the
# feedback folder (`nbgrader release_feedback`): the only files, besides the pages it
# generates from the notebooks, that `generate_feedback` puts into feedback/.
BOOKKEEPING = frozenset({"timestamp.txt", "submission_secret.txt"})


def student_id_problem(student_id: str) -> str | None:
    """Why nbgrader must not grade the student folder `student_id`, in one sentence, or None.

    nbgrader takes the student id from the folder's name and uses it unescaped: as a pattern
    (`ad[a]` matches `ada`'s files), in a regular expression that stops the whole batch at a
    line break, in its log (terminal escapes reach the instructor's terminal) and in
    Formgrader's pages (`<img src=x onerror=...>` runs on the instructor's Jupyter server)."""
    if not is_utf8(student_id):
        return (f"the student folder {os.fsencode(student_id)!r} is not named in UTF-8, which "
                "nbgrader cannot handle; rename the folder to grade it")
    shown = f"'{escape.one_line(student_id, 200)}'"
    if any(unicodedata.category(char) in escape.SHOWN_AS_ESCAPES for char in student_id):
        return (f"the student folder {shown} has a control or format character (a line break, "
                "a terminal escape) in its name, which nbgrader cannot match or show safely; "
                "rename the folder to grade it")
    if HTML_CHARACTERS & set(student_id):
        return (f"the student folder {shown} has a character that HTML reads as markup "
                "(< > \" ' &) in its name, which Formgrader would show unescaped; rename the "
                "folder to grade it")
    if GLOB_CHARACTERS & set(student_id):
        return (f"the student folder {shown} has a glob character (* ? [ ]) in its name, "
                "which nbgrader reads as a pattern (it could match another student's files); "
                "rename the folder to grade it")
    return None


def look_alike_ids(students: Iterable[str], gradebook: Iterable[str] = ()) -> list[str]:
    """A sentence for the log about each of `students` (the ids nbgrader grades now) whose id
    is not in Unicode's normal form NFC, or reads like (`discovery.look_alikes`) another of
    them or a student of the `gradebook`: nbgrader creates a student for each id it has not
    seen, so a Mac's `Jose` + U+0301 becomes a second student beside the `José` added with
    `nbgrader db student add`, and Formgrader shows the two alike. Neither is refused or
    renamed (both may be real); each sentence names the ids in code points."""
    present, known = set(students), set(gradebook)
    alike = look_alikes(present | known)
    sentences = []
    for student in sorted(present):
        composed = unicodedata.normalize("NFC", student)
        others = alike.get(student, ())
        if composed == student and not others:
            continue
        said = []
        if composed != student:
            said.append("is not in Unicode's normal form NFC (a zip made on a Mac writes "
                        "accents as characters of their own)")
        if others:
            more = len(others) - MAX_NAMES_SHOWN
            said.append("reads like " + ", ".join(
                ("the student id " if other in present else "the gradebook's student ")
                + escape.unmistakable(other) + (" (the same id in NFC)"
                                                if other == composed else "")
                for other in others[:MAX_NAMES_SHOWN]) + (f" and {more} more" if more > 0
                                                          else ""))
        sentences.append(
            f"The student id {escape.unmistakable(student)} {' and '.join(said)}: nbgrader "
            "grades it as a student of its own"
            + ("; Formgrader lists them as students that read alike, so check that each is the "
               "right student" if others
               else f", apart from any student added as {escape.unmistakable(composed)}"))
    return sentences


def _gradebook_students(converter: BaseConverter) -> list[str]:
    """The gradebook's student ids, for `look_alike_ids`; none when it cannot be read (that
    is for nbgrader to report: the look-alikes are only a hint)."""
    try:
        with Gradebook(converter.coursedir.db_url, converter.coursedir.course_id) as book:
            return [student.id for student in book.students]
    except Exception:  # SQLAlchemy's errors: a locked or damaged file
        return []


def _student_ids(converter: BaseConverter) -> dict[str, str | None]:
    """Each folder in nbgrader's list of submissions, with its student id (None: no match)."""
    pattern = converter._format_source("(?P<assignment_id>.*)", "(?P<student_id>.*)",
                                       escape=True)
    matches = {folder: re.fullmatch(pattern, folder, re.DOTALL)
               for folder in sorted(converter.assignments)}
    return {folder: match["student_id"] if match else None
            for folder, match in matches.items()}


def _refuse_student_ids(converter: BaseConverter) -> None:
    """Leave out of nbgrader's list of submissions each one whose student id
    `student_id_problem` refuses, with its sentence in the log; the others are graded."""
    for folder, student in _student_ids(converter).items():
        problem = student_id_problem(student) if student is not None else None
        if problem:
            converter.log.error("Not graded: %s", problem)
            del converter.assignments[folder]


def _report_look_alike_ids(converter: BaseConverter) -> None:
    """Warn, in nbgrader's log, of each student id `look_alike_ids` names."""
    students = [student for student in _student_ids(converter).values() if student]
    for sentence in look_alike_ids(students, _gradebook_students(converter)):
        converter.log.warning("%s", sentence)


def _report_hidden_folders(converter: BaseConverter) -> None:
    """Name each hidden student folder (`.ada/`), which nbgrader's pattern passes over."""
    if converter.coursedir.student_id != "*":
        return
    hidden = glob.glob(converter._format_source(converter.coursedir.assignment_id, ".*"))
    for folder in sorted(hidden):
        student = os.path.basename(os.path.dirname(os.path.normpath(folder)))
        if student in IGNORED:
            continue
        converter.log.error(
            "Not graded: the student folder '%s' starts with '.', and nbgrader passes over "
            "hidden folders; rename the folder to grade it", escape.one_line(student, 200))


def _report_assignment_folders_in_another_case(converter: BaseConverter) -> None:
    """Name each student's folder for this assignment spelled in another case (`Schedules/`),
    which nbgrader, matching folder names letter for letter, passes over without a word
    (grade-batch grades it)."""
    assignment = converter.coursedir.assignment_id
    if converter.coursedir.student_id != "*" or glob.has_magic(assignment):
        return
    for folder in sorted(glob.glob(converter._format_source("*", "*"))):
        name = os.path.basename(folder)
        if name == assignment or name.casefold() != assignment.casefold():
            continue
        student = os.path.basename(os.path.dirname(folder))
        converter.log.warning(
            "Not graded: the folder '%s' of student '%s' is not spelled like the assignment "
            "'%s', and nbgrader matches folder names letter for letter; rename it to '%s' to "
            "grade it", escape.one_line(name, 200), escape.one_line(student, 200), assignment,
            assignment)


def _check_submission(converter: BaseConverter, assignment_id: str, student_id: str) -> None:
    """Refuse, with one sentence, a submission folder that is not the student's own."""
    source = converter._format_source(assignment_id, student_id)
    for folder in (os.path.dirname(os.path.normpath(source)), source):
        if os.path.islink(folder):
            raise NbGraderException(
                f"{safe_text(folder, 300)} is a symbolic link, which can point at another "
                "student's work; nothing in it was graded")


def _copy_own_files(converter: BaseConverter, assignment_id: str, student_id: str) -> None:
    """nbgrader's copy of the files beside the notebooks, for regular files only: a link (to a
    solution, the gradebook, /dev/zero), a device or a pipe is left out with a warning. Files
    are copied by name while they fit in MAX_COPIED_BYTES and MAX_COPIED_FILES per submission
    (sizes as the file system states them, so a sparse file counts whole); the rest are named
    in one sentence of the log. Into feedback/ only nbgrader's BOOKKEEPING is copied
    (`_feedback_files`)."""
    source = converter._format_source(assignment_id, student_id)
    dest = converter._format_dest(assignment_id, student_id)
    budget, copied, left_bytes, left_out = MAX_COPIED_BYTES, 0, 0, []
    found = sorted(utils.find_all_files(source, converter.coursedir.ignore + ["*.ipynb"]))
    if isinstance(converter, GenerateFeedback):
        found = _feedback_files(converter, source, dest, found)
    for filename in found:
        try:
            status = os.lstat(filename)
        except OSError:
            continue
        if not stat.S_ISREG(status.st_mode):
            converter.log.warning("Not copying %s: not a regular file of the student's own (a "
                                  "link, a device or a pipe)", safe_text(filename, 300))
            continue
        if status.st_size > budget or copied >= MAX_COPIED_FILES:
            left_out.append(os.path.relpath(filename, source))
            left_bytes += status.st_size
            continue
        budget, copied = budget - status.st_size, copied + 1
        path = os.path.join(dest, os.path.relpath(filename, source))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        if os.path.lexists(path):
            os.remove(path)
        converter.log.info("Copying %s -> %s", filename, path)
        shutil.copyfile(filename, path, follow_symlinks=False)
    if left_out:
        root = converter.coursedir.root
        names = ", ".join(safe_text(name, 100) for name in left_out[:MAX_NAMES_SHOWN])
        more = len(left_out) - MAX_NAMES_SHOWN
        converter.log.warning(
            "Not copying %d files beside the notebooks of %s into %s (%.1f MiB): up to %d MiB "
            "and %d files of each submission are copied, and its notebooks are graded all the "
            "same; left out: %s%s", len(left_out), safe_text(os.path.relpath(source, root), 300),
            safe_text(os.path.relpath(dest, root), 300), left_bytes / 2**20,
            MAX_COPIED_BYTES // 2**20, MAX_COPIED_FILES, names,
            f" and {more:,} more" if more > 0 else "")


def _feedback_files(converter: BaseConverter, source: str, dest: str,
                    found: list[str]) -> list[str]:
    """Of the files beside a submission's notebooks (`found`), those `generate_feedback` copies
    into feedback/: nbgrader's own BOOKKEEPING, which release_feedback reads. A student's own
    files (an `index.html`, a `02_cron_matches.html` for a notebook they did not submit, a
    script) would sit beside the course's feedback pages, be released with them and served as
    the course's feedback; they are left out, named in one sentence of the log."""
    kept = [name for name in found if os.path.relpath(name, source) in BOOKKEEPING]
    left_out = [os.path.relpath(name, source) for name in found if name not in kept]
    if left_out:
        root = converter.coursedir.root
        more = len(left_out) - MAX_NAMES_SHOWN
        converter.log.warning(
            "Not copying %d files beside the notebooks of %s into %s: feedback holds only the "
            "pages generated from the notebooks, so that no file of a student's passes for the "
            "course's feedback; left out: %s%s", len(left_out),
            safe_text(os.path.relpath(source, root), 300),
            safe_text(os.path.relpath(dest, root), 300),
            ", ".join(safe_text(name, 100) for name in left_out[:MAX_NAMES_SHOWN]),
            f" and {more:,} more" if more > 0 else "")
    return kept


class PrintableLog(logging.Filter):
    """A log handler's filter that shows every control and format character of a record as an
    escape (`safe_text`, line breaks kept): nbgrader, and nbformat through nbgrader's log, print
    text of a submission raw, such as the name of a file beside the notebooks ("Copying ...")
    or a cell type that nbformat's validation error names ("Failed validating ... in ..._cell")."""

    def filter(self, record: logging.LogRecord) -> bool:
        text = record.getMessage()
        if record.exc_info:
            text += "\n" + logging.Formatter().formatException(record.exc_info)
            record.exc_info = record.exc_text = None
        record.msg, record.args = safe_text(text, limit=None), ()
        return True


def _print_log_safely(log: logging.Logger | logging.LoggerAdapter) -> None:
    """Put `PrintableLog` on every handler that prints `log`'s records (its own and those of
    the loggers it propagates to)."""
    logger: logging.Logger | None = log if isinstance(log, logging.Logger) else log.logger
    while logger is not None:
        for handler in logger.handlers:
            if not any(isinstance(kept, PrintableLog) for kept in handler.filters):
                handler.addFilter(PrintableLog())
        logger = logger.parent if logger.propagate else None


def _guarded_init_notebooks(self: BaseConverter) -> None:
    guarded = isinstance(self, (Autograde, GenerateFeedback))
    if guarded:
        _print_log_safely(self.log)
        _report_hidden_folders(self)
    _nbgrader_init_notebooks(self)
    if guarded:
        _refuse_student_ids(self)
    if isinstance(self, Autograde):  # where nbgrader creates the students it has not seen
        _report_look_alike_ids(self)
        _report_assignment_folders_in_another_case(self)


def _guarded_init_assignment(self: BaseConverter, assignment_id: str, student_id: str) -> None:
    if isinstance(self, (Autograde, GenerateFeedback)):
        _check_submission(self, assignment_id, student_id)
        _copy_own_files(self, assignment_id, student_id)
    else:
        _nbgrader_init_assignment(self, assignment_id, student_id)


def _guarded_timestamp(self: CourseDirectory, dest_path: str) -> Any:
    """nbgrader's `get_existing_timestamp`, reading timestamp.txt only as a small regular file
    (never through a link: /dev/zero would never end); anything else counts as none. Text that
    names no time fails that submission, as in nbgrader, but with one sentence: nbgrader's
    traceback quoted the student's text raw (dateutil's "Unknown string format: ...")."""
    path = os.path.join(dest_path, "timestamp.txt")
    try:
        status = os.lstat(path)
    except OSError:
        return None
    if not stat.S_ISREG(status.st_mode) or status.st_size > TIMESTAMP_BYTES:
        self.log.warning("Ignoring %s: not a small regular file of the student's own",
                         safe_text(path, 300))
        return None
    try:
        return _nbgrader_timestamp(self, dest_path)
    except Exception as error:  # ValueError, OverflowError: dateutil's, holding the text
        raise NbGraderException(
            f"{safe_text(path, 300)} names no time nbgrader can read "
            f"({type(error).__name__}); nothing of this submission was graded: check the "
            "file, correct or remove it, and autograde again") from None


_nbgrader_init_assignment = BaseConverter.init_assignment
_nbgrader_init_notebooks = BaseConverter.init_notebooks
_nbgrader_timestamp = CourseDirectory.get_existing_timestamp


def guard_submissions() -> None:
    """Install the checks above into nbgrader's converters (nbgrader_config.py calls this)."""
    BaseConverter.init_notebooks = _guarded_init_notebooks  # type: ignore[method-assign]
    BaseConverter.init_assignment = _guarded_init_assignment  # type: ignore[method-assign]
    CourseDirectory.get_existing_timestamp = _guarded_timestamp  # type: ignore[method-assign]


# -- what a student wrote, rendered as HTML -------------------------------------------------

TAG_START = re.compile(r"<(?=[A-Za-z/!?])")  # where an HTML tag, comment or directive begins


# A link's or an image's address in rendered Markdown, and the schemes one may use.
URL_ATTRIBUTE = re.compile(r'\b(href|src)="([^"]*)"')
SCHEME = re.compile(r"([a-z][a-z0-9+.\-]*):")
SAFE_SCHEMES = frozenset({"http", "https", "mailto"})


def _inert_url(match: re.Match) -> str:
    """`href="..."`/`src="..."` as rendered, or `href="#"` when its address would run code
    (`javascript:`, `vbscript:`, `data:` other than an image), read as a browser reads it:
    entities decoded, and spaces, tabs, line breaks and controls dropped."""
    attribute, value = match.groups()
    address = "".join(char for char in html.unescape(value) if char > " ").lower()
    scheme = SCHEME.match(address)
    if scheme and scheme.group(1) not in SAFE_SCHEMES \
            and not (attribute == "src" and address.startswith("data:image/")):
        return f'{attribute}="#"'
    return match.group(0)


class _Renderer(IPythonRenderer):
    """nbconvert's Markdown renderer, which shows an image whose attachment the cell does not
    hold as its alt text, instead of failing the whole page (nbconvert raises InvalidNotebook:
    one student's `![pic](attachment:missing.png)` stopped their feedback and Formgrader's view
    of their notebook)."""

    def image(self, text: str, url: str, title: str | None = None) -> str:
        address = url if MISTUNE_V3 else text  # mistune 2 passed the address first
        name = address[len("attachment:"):] if address.startswith("attachment:") else None
        if name is None or name in self.attachments:
            return super().image(text, url, title)
        alt = html.unescape(TAG.sub("", text if MISTUNE_V3 else url)) or name
        return html.escape(alt)


TAG = re.compile(r"<[^>]*>")


@jinja2.pass_context
def markdown2html(context: Any, source: str) -> str:
    """HTMLExporter's Markdown filter (the same renderer and settings), with no address that
    runs code: nbconvert lets `[text](javascript:...)` through, and nbgrader's feedback and
    Formgrader templates render Markdown without nbconvert's sanitizer. An image whose
    attachment is missing shows its alt text. Installed for every HTMLExporter by
    nbgrader_config.py (`c.HTMLExporter.filters`)."""
    cell = context.get("cell", {})
    renderer = _Renderer(
        escape=False, allow_harmful_protocols=False, attachments=cell.get("attachments", {}),
        path=context.get("resources", {}).get("metadata", {}).get("path", ""))
    return URL_ATTRIBUTE.sub(_inert_url, MarkdownWithMath(renderer=renderer).render(source))


# What one page rendered from a submission (its feedback, Formgrader's view of it) shows of the
# student's own cells. Highlighting a code cell and sanitizing its HTML costs up to about 60
# microseconds of CPU per character (1 MB of code took 59 s and 1.5 GB for one page), a
# Markdown cell about 3 ms and 3 microseconds per character, an attachment about 50 bytes of
# memory per byte. A handed-in lab's own cells hold at most about 15,000 characters of code
# (07's answers); the course's locked cells, restored from the gradebook, are shown whole and
# not counted. At most about 7 s of CPU and 400 MiB for a page, whatever the submission holds.
MAX_PAGE_CELLS = 500
MAX_PAGE_CODE = 50_000  # characters of code
MAX_PAGE_TEXT = 100_000  # characters of Markdown and raw cells
MAX_PAGE_ATTACHMENTS = 4 * 2**20  # characters of attachments' data (base64)


class PageBudget(Preprocessor):
    """The first preprocessor of every HTMLExporter: of the cells that are not the course's
    (locked, with a grade_id of the released notebook), at most MAX_PAGE_CELLS are shown, with
    at most MAX_PAGE_CODE characters of code, MAX_PAGE_TEXT of Markdown and raw text and
    MAX_PAGE_ATTACHMENTS of attachments in all; what is left out is named in one sentence where
    it would have been (an image whose attachment is left out shows its alt text)."""

    def preprocess(self, nb: NotebookNode, resources: dict) -> tuple[NotebookNode, dict]:
        course = _course_cell_ids(resources.get("metadata", {}).get("name"))
        left = {"code": MAX_PAGE_CODE, "text": MAX_PAGE_TEXT, "attachments": MAX_PAGE_ATTACHMENTS}
        cells, own = [], 0
        for cell in nb.cells:
            meta = cell.get("metadata", {}).get("nbgrader")
            if isinstance(meta, dict) and meta.get("locked") is True \
                    and meta.get("grade_id") in course:
                cells.append(cell)
                continue
            own += 1
            if own <= MAX_PAGE_CELLS:
                cells.append(_within_budget(cell, left))
        if own > MAX_PAGE_CELLS:
            cells.append(nbformat.v4.new_markdown_cell(
                f"*{own - MAX_PAGE_CELLS:,} more cells of this notebook are not shown here: a "
                f"page shows at most {MAX_PAGE_CELLS:,} cells of a student's own.*"))
        nb.cells = cells
        return nb, resources


def _within_budget(cell: NotebookNode, left: dict[str, int]) -> NotebookNode:
    """`cell` cut to what is `left` of the page's budget, which it then uses up."""
    code = cell.get("cell_type") == "code"
    kind = "code" if code else "text"
    source = cell.get("source")
    if isinstance(source, str) and len(source) > left[kind]:
        what, limit = ("code", MAX_PAGE_CODE) if code else ("Markdown and raw text",
                                                            MAX_PAGE_TEXT)
        sentence = (f"... {len(source) - left[kind]:,} more characters of this cell are not "
                    f"shown here: a page shows at most {limit:,} characters of {what} of a "
                    "student's own")
        cell.source = source[:left[kind]] + (f"\n# {sentence}" if code else f"\n\n*{sentence}.*")
    left[kind] -= min(left[kind], len(source) if isinstance(source, str) else 0)
    attachments = cell.get("attachments")
    if isinstance(attachments, dict) and attachments:
        kept = {}
        for name, bundle in attachments.items():
            size = sum(len(str(data)) for data in bundle.values()) \
                if isinstance(bundle, dict) else 0
            if isinstance(bundle, dict) and size <= left["attachments"]:
                kept[name] = bundle
                left["attachments"] -= size
        cell.attachments = kept
        if len(kept) < len(attachments):
            cell.source = f"{cell.get('source', '')}\n\n*{len(attachments) - len(kept):,} " \
                "attachments of this cell are not shown here (an image shows its alt text): a " \
                f"page shows at most {MAX_PAGE_ATTACHMENTS // 2**20} MiB of a student's " \
                "attachments.*"
    return cell


def _course_cell_ids(name: object) -> frozenset[str]:
    """The grade_ids of the locked cells of the released notebook called `name`: the cells
    nbgrader restores from the gradebook, the course's own text."""
    exercise = exercise_for(name) if isinstance(name, str) else None
    if exercise is None:
        return frozenset()
    try:
        cells = plain_cells(REPOSITORY / "notebooks" / exercise.path)
    except (OSError, ValueError, KeyError):
        return frozenset()
    return frozenset(str(nbgrader_meta(cell).get("grade_id")) for cell in cells
                     if nbgrader_meta(cell).get("locked"))


class InertMarkdown(Preprocessor):
    """Markdown and raw cells with every HTML tag shown as text (`<script>` becomes
    `&lt;script>`): Markdown itself (emphasis, lists, code, math) renders as before. The
    course's own Markdown holds no HTML (`tests/test_nbgrader_submissions.py` checks)."""

    def preprocess_cell(self, cell: NotebookNode, resources: dict,
                        index: int) -> tuple[NotebookNode, dict]:
        if cell.get("cell_type") in ("markdown", "raw") and isinstance(cell.get("source"), str):
            cell.source = TAG_START.sub("&lt;", cell.source)
        return cell, resources
