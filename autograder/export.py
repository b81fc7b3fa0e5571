"""Export a gradebook to an LMS: one row per student, one column per assignment.

    python -m autograder export grades/ --format canvas --roster roster.csv
    python -m autograder export grades/ --format csv [--roster roster.csv] [--missing blank]

The roster (CSV) maps the course's student ids (the folder names under submitted/) to the
LMS's: columns `student` and `lms_id`, and for Canvas optionally `name`, `sis_user_id`,
`sis_login_id` and `section`; a roster's name finds its student as an override's does
(`match_roster`). A student with nothing submitted for an assignment (every one of its
notebooks "not submitted" and no override) gets 0, or a blank cell with `--missing blank`.
Scores are after late penalties and overrides, as in grades.csv.

Canvas: Canvas's gradebook import format (Student, ID, SIS User ID, SIS Login ID, Section,
then one column per assignment titled as the assignment in Canvas, then a "Points Possible"
row). `--title schedules="Lab 1: schedules (1234)"` names a column exactly as Canvas's own
export does, so the import fills that assignment instead of creating a new one.
Plain CSV: student, lms_id, one column per assignment, total.
"""

from __future__ import annotations

import csv
import io
from collections import Counter
from pathlib import Path

from . import discovery, escape
from .rubric import ASSIGNMENTS, EXERCISES

CANVAS_FIXED = ("Student", "ID", "SIS User ID", "SIS Login ID", "Section")


class ExportError(Exception):
    """The export cannot be made; the message is one sentence for a person."""


def read_gradebook(folder: Path) -> dict[str, dict[str, float | None]]:
    """student -> assignment -> points (None: nothing submitted), from folder/grades.csv."""
    path = Path(folder) / "grades.csv"
    try:
        with open(path, newline="", encoding="utf-8") as handle:
            rows = list(csv.DictReader(handle))
    except FileNotFoundError:
        raise ExportError(f"{path} does not exist (run grade-batch first)") from None
    except (OSError, UnicodeDecodeError, csv.Error) as error:
        raise ExportError(f"{path} cannot be read as a gradebook ({type(error).__name__})") \
            from None
    scores: dict[str, dict[str, float | None]] = {}
    seen: set[tuple[str, str]] = set()
    try:
        for row in rows:
            if (row["student"], row["notebook"]) in seen:
                raise ValueError("two rows for one student's notebook")
            seen.add((row["student"], row["notebook"]))
            mine = scores.setdefault(row["student"], {})
            score = float(row["score"])
            # A row of nothing handed in scores 0 and its note says so; the note of a graded
            # row may start with the student's folder name (`not submitted/schedules/...`),
            # which must never turn points earned into nothing submitted.
            missing = row.get("note", "").startswith("not submitted") and not score \
                and not row.get("override")
            before = mine.get(row["assignment"])
            if not missing:
                mine[row["assignment"]] = (before or 0.0) + score
            else:
                mine.setdefault(row["assignment"], None)
    except (KeyError, ValueError, TypeError, AttributeError):
        # a damaged or cut file: rows with missing cells (None), or two rows for one notebook
        raise ExportError(f"{path} is not a gradebook written by grade-batch") from None
    return scores


def read_roster(path: Path | None) -> list[dict[str, str]]:
    if path is None:
        return []
    try:
        with open(path, newline="", encoding="utf-8-sig") as handle:
            rows = [{k.strip(): (v or "").strip() for k, v in row.items() if k}
                    for row in csv.DictReader(handle)]
    except OSError as error:
        raise ExportError(f"cannot read the roster {path} ({error.strerror or error})") from None
    except (UnicodeDecodeError, csv.Error) as error:
        raise ExportError(f"the roster {path} is not a UTF-8 CSV file ({type(error).__name__}); "
                          "save it as CSV UTF-8") from None
    if rows and not {"student", "lms_id"} <= set(rows[0]):
        raise ExportError(f"the roster {path} needs the columns student and lms_id")
    return rows


def match_roster(scores: dict[str, dict[str, float | None]],
                 roster: list[dict[str, str]]) -> tuple[list[dict[str, str | None]],
                                                         list[str]]:
    """The people to export, each with the `key` of their scores in the gradebook (None for
    none), and the notes and warnings of the matching; without a roster, every student.

    A roster names a student as an override does (batch._student_named): by the folder name
    (grades.csv holds each as escape.csv_key wrote it, `'-ada` for -ada) or as grades.csv shows
    it; else in another Unicode normal form (`José` typed as one letter for a Mac's
    `Jose` + U+0301), with a note, when that fits one student only. A name that differs in
    case, a letter's form or a letter's script (`Ada` for ada) is never matched: the warning
    for the student the roster leaves out names it."""
    if not roster:
        return [{"student": s, "lms_id": "", "key": s, "cell": s} for s in sorted(scores)], []
    gradebook = discovery.StudentNames((student, student) for student in scores)
    people: list[dict[str, str | None]] = []
    messages: list[str] = []
    written: dict[str, set[str]] = {}  # the gradebook's student -> the roster's names for them
    for row in roster:
        name = row["student"]
        match = gradebook.match(name, escape.csv_key(name))
        key = match.exact[0] if len(match.exact) == 1 else None
        if len(match.exact) > 1:  # `'-ada` is the folder '-ada and how grades.csv shows -ada
            messages.append(
                f"warning: the roster names {escape.unmistakable(name)}, which is a student's "
                "folder name and also how grades.csv shows another student; its row gets no "
                f"points: write {escape.unmistakable(escape.csv_key(name))} for the first or "
                "the second's folder name")
        elif not match.exact and len(match.other_form) == 1:
            key = match.other_form[0]
            messages.append(discovery.other_form_note("the roster", name, key))
        elif not match.exact and match.other_form:
            messages.append(discovery.other_forms_warning(
                "the roster", name, match.other_form, "its row gets no points"))
        if key is not None:
            written.setdefault(key, set()).add(name)
        people.append({**row, "key": key})
    messages += [f"warning: the roster names the student {escape.unmistakable(student)} in "
                 f"{len(names)} ways ({', '.join(map(escape.unmistakable, sorted(names)))}): "
                 "each row gets the same points; fix the roster"
                 for student, names in sorted(written.items()) if len(names) > 1]
    in_roster = discovery.StudentNames((form, row["student"]) for row in roster
                                       for form in (row["student"],
                                                    escape.csv_key(row["student"])))
    messages += [f"warning: {escape.unmistakable(student)} is in the gradebook but not in the "
                 "roster; left out"
                 + discovery.reads_like_hint(in_roster.match(student).alike, "the roster's ")
                 for student in sorted(scores) if student not in written]
    return people, messages


def _student_cell(person: dict[str, str | None]) -> str:
    """The student column of a row: a roster's name made a safe cell, or, without a roster,
    the gradebook's cell as grades.csv holds it (already made safe by escape.csv_key: `'-ada`
    for -ada, which a second ' would turn into the text `'-ada`). A cell that csv_key cannot
    have written (a hand-edited gradebook) is made safe again."""
    cell = person.get("cell")
    if cell is None:
        return escape.csv_cell(person["student"])
    unquoted = cell[1:] if cell.startswith("'") else cell
    return cell if escape.csv_cell(unquoted) == cell else escape.csv_cell(cell)


def export(folder: Path, fmt: str, roster_path: Path | None = None, missing: str = "zero",
           titles: dict[str, str] | None = None) -> tuple[str, list[str]]:
    """The export's text, and the lines to show the instructor: a `warning: ` for each
    student it could not place, a `note: ` for each it placed by another form of the name."""
    scores = read_gradebook(folder)
    roster = read_roster(roster_path)
    if fmt == "canvas" and not roster:
        raise ExportError("--format canvas needs --roster FILE (student,lms_id,...): Canvas "
                          "matches rows by its own ID")
    assignments = [a for a in ASSIGNMENTS if any(a in mine for mine in scores.values())]
    maxima = {a: sum(e.max_score for e in EXERCISES if e.assignment == a) for a in assignments}
    titles = {a: (titles or {}).get(a, a) for a in assignments}
    people, messages = match_roster(scores, roster)
    for column, what in (("student", "student"), ("lms_id", "LMS id")):
        counted = Counter(person[column] for person in roster if person.get(column))
        messages += [f"warning: the roster names the {what} {escape.unmistakable(value)} more "
                     "than once: each row gets the same points; fix the roster"
                     for value in sorted(v for v, times in counted.items() if times > 1)]
    if fmt == "canvas":
        messages += [f"warning: the roster gives {escape.unmistakable(person['student'])} no "
                     "lms_id, so Canvas cannot match the row"
                     for person in roster if not person.get("lms_id")]

    def points(student: str | None, assignment: str) -> str:
        value = scores[student].get(assignment) if student is not None else None
        if value is None:
            return "" if missing == "blank" else "0"
        return f"{round(value, 2):g}"

    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    if fmt == "canvas":
        writer.writerow([*CANVAS_FIXED, *(titles[a] for a in assignments)])
        writer.writerow(["Points Possible", "", "", "", "", *(f"{maxima[a]:g}"
                                                              for a in assignments)])
        for person in people:
            writer.writerow([escape.csv_cell(person.get(k, "")) for k in
                             ("name", "lms_id", "sis_user_id", "sis_login_id", "section")]
                            + [points(person["key"], a) for a in assignments])
    else:
        writer.writerow(["student", "lms_id", *assignments, "total"])
        for person in people:
            cells = [points(person["key"], a) for a in assignments]
            total = sum(float(c) for c in cells if c)
            writer.writerow([_student_cell(person),
                             escape.csv_cell(person.get("lms_id", "")), *cells,
                             f"{round(total, 2):g}"])
    return buffer.getvalue(), messages
