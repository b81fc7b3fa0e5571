"""`nbgrader export` as CSV files that spreadsheets and Canvas read safely.

`CsvExportPlugin` is nbgrader's own `grades.csv` (the same columns and rows), with every field
quoted and no text cell that a spreadsheet runs as a formula; `nbgrader_config.py` makes it
`nbgrader export`'s default (`c.ExportApp.plugin_class`). nbgrader's plugin writes each field
raw: a student folder named `=HYPERLINK(...)` became a formula, and one named
`ada,,,,0,0,0,50` a second row for `ada`.

`CanvasExportPlugin` writes a gradebook CSV that Canvas imports (Grades -> Import):

    nbgrader export --exporter=autograder.nbgrader_export.CanvasExportPlugin --to canvas.csv

Columns, in the order of Canvas's own gradebook export:

| column | from nbgrader's gradebook |
| --- | --- |
| `Student` | "last, first" as entered with `nbgrader db student add`, else the student id |
| `ID` | the student's `lms_user_id` (Canvas's numeric user id), empty when unknown |
| `SIS User ID` | the nbgrader student id (the folder name under `submitted/`) |
| `SIS Login ID` | the nbgrader student id |
| `Section` | empty (Canvas keeps the section it has) |
| `<assignment>` (one per assignment) | its score after penalties and manual grades |

A score is empty when nothing was submitted. An assignment column is named
`<assignment> (<canvas id>)` when `c.CanvasExportPlugin.canvas_ids` gives its Canvas id.
The second row is Canvas's "Points Possible" row. Canvas matches students by `ID`, then
`SIS User ID`, then `SIS Login ID`; an assignment column without a Canvas id creates a new
assignment on import. Text cells that a spreadsheet would run as a formula (`=`, `+`, `-`,
`@` first) get a leading apostrophe. A student id keeps every character (one that no one
sees, such as an unassigned code point, written as an escape), so that no two students share
an id cell (`student_id_cell`).
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

from nbgrader.api import Gradebook, MissingEntry
from nbgrader.plugins import ExportPlugin
from traitlets import Dict, Unicode

from . import escape
from .export import CANVAS_FIXED as COLUMNS  # Canvas's fixed columns, as grade-batch exports


def spreadsheet_safe(text: object) -> str:
    """One line (unprintable characters become spaces) that no spreadsheet runs as a formula,
    by the gradebook's own rule (`escape.csv_cell`): for names and e-mail addresses."""
    text = "" if text is None else str(text)
    return escape.csv_cell("".join(char if char.isprintable() else " " for char in text))


def student_id_cell(student_id: object) -> str:
    """A student id as a cell of its own: `escape.csv_cell`, which shows a character no one
    sees (an unassigned code point, a control) as an escape and never runs a formula. Unlike
    `spreadsheet_safe` it never makes two ids one: `ada` followed by a no-break space, by an
    ideographic space or by an unassigned code point were each the cell `ada ` (and one
    student's row in an LMS)."""
    return escape.csv_cell("" if student_id is None else str(student_id))


def _points(value: float) -> str:
    return f"{round(float(value), 2):g}"


# nbgrader's grades.csv columns, in its order.
CSV_COLUMNS = ("assignment", "duedate", "timestamp", "student_id", "last_name", "first_name",
               "email", "raw_score", "late_submission_penalty", "score", "max_score")


def _number(value: object) -> str:
    return "" if value is None else str(value)


class CsvExportPlugin(ExportPlugin):
    """nbgrader's `grades.csv`: one row per assignment and student (0 points when nothing was
    submitted), every field quoted, text through `spreadsheet_safe`."""

    def export(self, gradebook: Gradebook) -> None:
        destination = Path(self.to or "grades.csv")
        self.log.info("Exporting grades to %s", destination)
        destination.write_text(self.table(gradebook), encoding="utf-8", newline="")

    def table(self, gradebook: Gradebook) -> str:
        assignments = {str(name) for name in self.assignment}
        students = {str(name) for name in self.student}
        buffer = io.StringIO()
        writer = csv.writer(buffer, quoting=csv.QUOTE_ALL, lineterminator="\n")
        writer.writerow(CSV_COLUMNS)
        for assignment in gradebook.assignments:
            if assignments and assignment.name not in assignments:
                continue
            for student in gradebook.students:
                if students and student.id not in students:
                    continue
                try:
                    submission = gradebook.find_submission(assignment.name, student.id)
                except MissingEntry:
                    timestamp, raw, penalty, score = None, 0.0, 0.0, 0.0
                else:
                    timestamp, raw = submission.timestamp, submission.score
                    penalty = submission.late_submission_penalty
                    score = max(0.0, raw - penalty)
                writer.writerow([
                    spreadsheet_safe(assignment.name), _number(assignment.duedate),
                    _number(timestamp), student_id_cell(student.id),
                    spreadsheet_safe(student.last_name), spreadsheet_safe(student.first_name),
                    spreadsheet_safe(student.email), _number(raw), _number(penalty),
                    _number(score), _number(assignment.max_score)])
        return buffer.getvalue()


class CanvasExportPlugin(ExportPlugin):
    """Write nbgrader's gradebook as a CSV that Canvas's gradebook import reads."""

    canvas_ids = Dict(key_trait=Unicode(), value_trait=Unicode(),
                      help="assignment -> Canvas assignment id, so the import updates that "
                           "assignment instead of creating one").tag(config=True)

    def export(self, gradebook: Gradebook) -> None:
        destination = Path(self.to or "canvas_grades.csv")
        self.log.info("Exporting grades for Canvas to %s", destination)
        destination.write_text(self.table(gradebook), encoding="utf-8", newline="")

    def table(self, gradebook: Gradebook) -> str:
        assignments = [a for a in gradebook.assignments
                       if not self.assignment or a.name in self.assignment]
        students = [s for s in gradebook.students
                    if not self.student or s.id in self.student]
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        names = []
        for assignment in assignments:
            canvas_id = self.canvas_ids.get(assignment.name)
            names.append(f"{assignment.name} ({canvas_id})" if canvas_id else assignment.name)
        writer.writerow([*COLUMNS, *map(spreadsheet_safe, names)])
        writer.writerow(["    Points Possible", "", "", "", "",
                         *(_points(a.max_score) for a in assignments)])
        for student in sorted(students, key=lambda s: s.id):
            if student.last_name or student.first_name:
                shown = spreadsheet_safe(", ".join(
                    p for p in (student.last_name, student.first_name) if p))
            else:
                shown = student_id_cell(student.id)
            row = [shown, spreadsheet_safe(student.lms_user_id or ""),
                   student_id_cell(student.id), student_id_cell(student.id), ""]
            for assignment in assignments:
                try:
                    submission = gradebook.find_submission(assignment.name, student.id)
                except MissingEntry:
                    row.append("")
                    continue
                penalty = submission.late_submission_penalty or 0.0
                row.append(_points(max(0.0, submission.score - penalty)))  # as nbgrader's CSV
            writer.writerow(row)
        return buffer.getvalue()
