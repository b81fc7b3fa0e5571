"""Print a class gradebook (grades.csv from grade-batch) as a table: one row per student.

    python -m autograder.gradebook DIR/grades.csv
"""

from __future__ import annotations

import csv
import sys
from pathlib import Path

from .rubric import EXERCISES, TOTAL_POINTS


def table(rows: list[dict[str, str]]) -> str:
    notebooks = [e.notebook for e in EXERCISES]
    scores: dict[str, dict[str, float]] = {}
    for row in rows:
        scores.setdefault(row["student"], {})[row["notebook"]] = float(row["score"])
    header = ["student"] + [name[:2] for name in notebooks] + ["total"]
    lines = [header, ["(max)"] + [f"{e.max_score:g}" for e in EXERCISES] + [f"{TOTAL_POINTS:g}"]]
    for student in sorted(scores):
        mine = scores[student]
        cells = [f"{mine[name]:g}" if name in mine else "-" for name in notebooks]
        lines.append([student] + cells + [f"{sum(mine.values()):g}"])
    widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
    text = ["  ".join(cell.ljust(widths[0]) if i == 0 else cell.rjust(widths[i])
                      for i, cell in enumerate(line)) for line in lines]
    legend = ", ".join(f"{name[:2]} = {name}" for name in notebooks)
    return "\n".join(text) + f"\n\n{legend}; - = not submitted"


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
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
    except (KeyError, ValueError, csv.Error):
        print(f"error: {path} is not a gradebook written by grade-batch", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
