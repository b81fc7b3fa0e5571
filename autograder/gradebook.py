"""Print a class gradebook (grades.csv from grade-batch) as a table: one row per student.

    python -m autograder.gradebook DIR/grades.csv
"""

from __future__ import annotations

import csv
import re
import sys
from pathlib import Path

import wcwidth

from .discovery import look_alikes
from .escape import code_points, terminal
from .rubric import EXERCISES

NAME_COLUMNS = 32  # the widest a student's name is drawn in the table; a wider one is cut
# The start of an escape that `terminal` writes (\e, \x1b, \u2800, \U0001f600) cut short.
PART_OF_AN_ESCAPE = re.compile(r"\\(u[0-9a-f]{0,3}|U[0-9a-f]{0,7}|x[0-9a-f]?)?$")


def _cut(name: str, number: int) -> str:
    """`name` cut to fit NAME_COLUMNS with `… [number]`, the number of its line in full below."""
    mark = f"… [{number}]"
    room = NAME_COLUMNS - wcwidth.width(mark)
    kept = ""
    for character in name:
        if wcwidth.width(kept + character) > room:
            break
        kept += character
    return PART_OF_AN_ESCAPE.sub("", kept) + mark


def table(rows: list[dict[str, str]]) -> str:
    """One line per student and one column per notebook of the assignments in the gradebook,
    with the maximum of exactly those notebooks. `*` marks an instructor's override and `L` a
    late penalty (grades.csv says why). Students whose names read alike (`José` with its
    accent composed and not, `Ada` and `ada`) are shown in code points, so their rows read
    apart. Columns are padded to the width a terminal draws (a wide `東` takes two columns,
    a combining accent none), so every row's columns line up. A name drawn wider than
    NAME_COLUMNS (a folder may be named with 255 characters, or with 80 Braille blanks, each
    shown as \\u2800) is cut and numbered, and written in full below the table, so that no
    student's name widens everyone's rows."""
    present = {row["notebook"] for row in rows}
    exercises = [e for e in EXERCISES if e.notebook in present]
    notebooks = [e.notebook for e in exercises]
    scores: dict[str, dict[str, float]] = {}
    marks: dict[tuple[str, str], str] = {}
    for row in rows:
        if row["notebook"] in scores.get(row["student"], {}):
            raise ValueError("two rows for one student's notebook")
        scores.setdefault(row["student"], {})[row["notebook"]] = float(row["score"])
        marks[(row["student"], row["notebook"])] = (
            ("*" if row.get("override") else "") + ("L" if row.get("penalty") else ""))
    header = ["student"] + [name[:2] for name in notebooks] + ["total"]
    top = sum(e.max_score for e in exercises)
    lines = [header, ["(max)"] + [f"{e.max_score:g}" for e in exercises] + [f"{top:g}"]]
    alike = look_alikes(scores)
    in_full: list[str] = []
    for student in sorted(scores):
        mine = scores[student]
        cells = [f"{mine[name]:g}{marks.get((student, name), '')}" if name in mine else "-"
                 for name in notebooks]
        name = code_points(student) if student in alike else terminal(student)
        if wcwidth.width(name) > NAME_COLUMNS:
            in_full.append(f"[{len(in_full) + 1}] {name}")
            name = _cut(name, len(in_full))
        lines.append([name] + cells + [f"{round(sum(mine.values()), 2):g}"])
    widths = [max(wcwidth.width(line[i]) for line in lines) for i in range(len(header))]
    text = ["  ".join(wcwidth.ljust(cell, widths[0]) if i == 0 else
                      wcwidth.rjust(cell, widths[i]) for i, cell in enumerate(line))
            for line in lines]
    legend = ", ".join(f"{name[:2]} = {name}" for name in notebooks)
    spelled = "; names that read alike in code points (Jos\\u00e9)" if alike else ""
    cut = ("\n\nNames cut short above, in full:\n" + "\n".join(in_full)) if in_full else ""
    return "\n".join(text) + (f"\n\n{legend}; - = no row; * = instructor's override; "
                              f"L = late penalty (grades.csv says why){spelled}") + cut


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv in (["-h"], ["--help"]):
        print("usage: python -m autograder.gradebook DIR/grades.csv\n\nShow the gradebook "
              "grade-batch wrote as a table: one row per student, one column per notebook.")
        return 0
    if len(argv) != 1:
        print("usage: python -m autograder.gradebook DIR/grades.csv", file=sys.stderr)
        return 2
    path = Path(argv[0])
    try:
        with open(path, newline="", encoding="utf-8") as handle:
            rows = list(csv.DictReader(handle))
        print(table(rows))
    except FileNotFoundError:
        print(f"error: {path} does not exist (run grade-batch first)", file=sys.stderr)
        return 2
    except (KeyError, ValueError, TypeError, AttributeError, csv.Error, UnicodeDecodeError):
        # a damaged or cut file reads as rows with missing cells (None), or two rows for one
        # notebook: shown as one sentence, never as a table that adds or drops points
        print(f"error: {path} is not a gradebook written by grade-batch", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
