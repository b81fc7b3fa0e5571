"""Instructor overrides: `overrides.csv` with the columns student, notebook, score, reason.

An override replaces the score of one student's notebook (after any late penalty) on every
run of grade-batch, and the gradebook and the student's report show it with its reason.
Regrading never loses one: the file is the instructor's, grade-batch only reads it.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

from .rubric import exercise_for

COLUMNS = ("student", "notebook", "score", "reason")


class OverrideError(Exception):
    """The overrides file cannot be used at all; the message is one sentence for a person."""


@dataclass(frozen=True)
class Override:
    student: str
    notebook: str  # the exercise's notebook name, e.g. 01_parse_cron_field
    score: float
    reason: str


def load(path: Path | None) -> tuple[dict[tuple[str, str], Override], list[str]]:
    """The overrides in `path` by (student, notebook), and one warning per row not used."""
    if path is None:
        return {}, []
    try:
        with open(path, newline="", encoding="utf-8-sig") as handle:
            rows = list(csv.DictReader(handle))
            header = tuple(name.strip() for name in (rows and rows[0].keys()) or ())
    except OSError as error:
        raise OverrideError(f"cannot read {path} ({error.strerror or error})") from None
    except (UnicodeDecodeError, csv.Error) as error:
        raise OverrideError(f"{path} is not a UTF-8 CSV file ({error})") from None
    if rows and set(COLUMNS) - set(header):
        raise OverrideError(f"{path} needs the columns {', '.join(COLUMNS)} in its first line")
    found: dict[tuple[str, str], Override] = {}
    warnings = []
    for line, row in enumerate(rows, start=2):
        row = {str(k).strip(): (v or "").strip() for k, v in row.items() if k is not None}
        exercise = exercise_for(row["notebook"])
        if exercise is None:
            warnings.append(f"{path} line {line}: {row['notebook']!r} is not a notebook of "
                            "the course; row ignored")
            continue
        try:
            score = float(row["score"])
        except ValueError:
            warnings.append(f"{path} line {line}: score {row['score']!r} is not a number; "
                            "row ignored")
            continue
        if not 0 <= score <= exercise.max_score:
            warnings.append(f"{path} line {line}: score {score:g} is outside 0 to "
                            f"{exercise.max_score:g} for {exercise.notebook}; row ignored")
            continue
        if not row["reason"]:
            warnings.append(f"{path} line {line}: give a reason for the override; row ignored")
            continue
        key = (row["student"], exercise.notebook)
        if key in found:
            warnings.append(f"{path} line {line}: a second override for {key[0]} "
                            f"{key[1]}; the last one counts")
        found[key] = Override(row["student"], exercise.notebook, score, row["reason"])
    return found, warnings
