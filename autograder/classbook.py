"""The class gradebook's rows: one per student and expected notebook, whatever arrived.

For each student and each notebook of the assignments graded: the counted file's result, or
a 0 with the reason when nothing could be graded; then the late penalty of the deadlines file
and the instructor's override. The notes explain each row in grades.csv and in the student's
report (which file counted and why, what was not graded, lateness, overrides).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path

from . import deadlines, escape, report
from .discovery import Discovery, Skipped, Submission, summed_up
from .overrides import Override
from .results import ItemResult, NotebookResult, TestResult
from .rubric import Exercise

NOT_GRADED_COLUMNS = ("student", "assignment", "notebook", "file", "reason")
COLUMNS = ("submitted_at", "late_by", "penalty", "override", "note")


@dataclass
class Row:
    student: str
    exercise: Exercise
    result: NotebookResult  # after penalty and override
    submission: Submission | None
    lateness: deadlines.Lateness
    penalty: float = 0.0
    override: Override | None = None
    notes: list[str] = field(default_factory=list)
    flags: list[str] = field(default_factory=list)  # what the grader noticed as tampering
    unreadable: str = ""  # why a due notebook's timestamp.txt names no time (also in flags)

    def cells(self) -> tuple:
        """A grades.csv row: the five columns every gradebook starts with (docs/grader.md,
        `grade-batch`), then COLUMNS."""
        return (self.student, self.exercise.assignment, self.exercise.notebook,
                self.result.score, self.result.max_score, self.lateness.submitted_text,
                self.lateness.late_text, report.points(self.penalty) if self.penalty else "",
                self.override.reason if self.override else "", "; ".join(self.notes),
                self.flags)


def placeholder(exercise: Exercise, reason: str) -> NotebookResult:
    """0 points for a notebook that was not graded, with the reason on every item."""
    items = [ItemResult(item.grade_id, item.title, 0.0, item.points,
                        [TestResult(f"{exercise.notebook} · {item.title}", 0.0, item.points,
                                    f"not graded: {reason}", False)])
             for item in exercise.items]
    return NotebookResult(path=f"{exercise.path} (not submitted)", notebook=exercise.notebook,
                          assignment=exercise.assignment, score=0.0,
                          max_score=exercise.max_score, items=items, problems=[reason],
                          readable=False)


def build(found: Discovery, results: dict[Submission, NotebookResult],
          policy: deadlines.Policy, overrides: dict[tuple[str, str], Override]) -> list[Row]:
    by_key = {(s.student, s.exercise): s for s in found.submissions}
    rows = []
    entries = found.by_student()
    skipped = set(found.skipped)  # flags come from what was refused, not what was flagged
    stamps: dict[Path, datetime | str | None] = {}  # a folder's time, or why it has none
    for student in found.students:
        for exercise in found.exercises:
            submission = by_key.get((student, exercise))
            unreadable: list[str] = []  # a timestamp.txt that names no time, when it matters
            notes = found.notes_for(student, exercise.notebook, entries)
            if submission is None:
                reason = "not submitted" + (f" ({'; '.join(notes)})" if notes else "")
                result, lateness = placeholder(exercise, reason), deadlines.Lateness(None, None)
                notes = [reason]
            else:
                result = results[submission]
                if submission in found.chosen:  # it says which files were not counted
                    notes = [found.chosen[submission], *notes]
                if (result.grader_failed or not result.readable) and result.problems:
                    notes = [result.problems[0], *notes]  # why it has no score of its own
                if result.graded_again:
                    notes = [result.graded_again, *notes]
                folder = submission.path.parent  # one timestamp.txt for its notebooks
                if folder not in stamps:
                    try:
                        stamps[folder] = deadlines.read_timestamp(folder, policy.zone)
                    except deadlines.TimestampError as error:
                        stamps[folder] = str(error)
                when = stamps[folder]
                if isinstance(when, str):
                    lateness = policy.judge(student, exercise.assignment, None, when)
                    if lateness.note:  # due, and no time to compare with
                        unreadable = [when]
                else:
                    lateness = policy.judge(student, exercise.assignment, when)
            # flags.csv has a line per refused file; the row says how many of each kind
            refused = Counter(f"refused: {entry.reason}" for entry in entries.get(student, ())
                              if entry.tampering and entry in skipped
                              and entry.notebook in (exercise.notebook, ""))
            flags = list(result.flags) + unreadable + summed_up(
                [f"{flag} ({count:,} files)" if count > 1 else flag
                 for flag, count in refused.items()], "kinds of refused files")
            row = Row(student, exercise, result, submission, lateness, notes=notes, flags=flags,
                      unreadable="".join(unreadable))
            if lateness.note:
                row.notes.append(lateness.note)
            if lateness.fraction:
                row.penalty = round(result.score * lateness.fraction, 2)
                row.result = replace(result, score=round(result.score - row.penalty, 2))
            override = overrides.get((student, exercise.notebook))
            if override is not None:
                row.override = override
                row.notes.append(f"score set to {report.points(override.score)} by the "
                                 f"instructor (graded {report.points(row.result.score)}): "
                                 f"{override.reason}")
                row.result = replace(row.result, score=override.score)
            rows.append(row)
    return rows


def report_notes(rows: list[Row]) -> str:
    """The Markdown section of a student's report that explains the rows' notes."""
    lines = []
    for row in rows:
        if row.submission is None and row.override is None:
            continue  # the notebook's own section already says why it was not graded
        for note in row.notes:
            lines.append(f"- {row.exercise.notebook}: {escape.code_span(note)}")
    if not lines:
        return ""
    return "\n## Notes from the grader and the instructor\n\n" + "\n".join(lines) + "\n"


def not_graded_csv(found: Discovery, also: list[Skipped] | None = None) -> str:
    """Everything found and not graded (and everything graded but flagged), with reasons, and
    `also`: what was found and then could not be graded."""
    return report.csv_table(NOT_GRADED_COLUMNS, [
        [entry.student, entry.assignment, entry.notebook, entry.file, entry.reason]
        for entry in found.skipped + found.flagged + (also or [])], sort_columns=4)
