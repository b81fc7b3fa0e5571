"""Grade cells under nbgrader: the same hidden suite, run inside the student's kernel.

Each grade cell in `solutions/` ends with

    from autograder.in_kernel import grade_cell
    grade_cell("test_parse_cron_field", globals())

which prints a short report and leaves the points as the cell's value, nbgrader's partial
credit. Nothing is written to stderr (nbgrader would give the cell 0 for it), so a warning
from student code never costs points.

These lines run only where the source notebooks are executed (`make outputs`, nbval), never
on a student's submission: the student copies keep only the cell's first comment line, and
`nbgrader autograde` with the repository's nbgrader_config.py grades in the sandbox
(`autograder.nbgrader_autograde`), like `python -m autograder`. Code in one kernel can reach
everything the tests can, so this path must never grade untrusted work.
"""

from __future__ import annotations

import contextlib
import io
import warnings

from . import scoring
from .rubric import item_for


def grade_cell(grade_id: str, namespace: dict) -> float:
    exercise, item = item_for(grade_id)
    quiet = io.StringIO()
    with contextlib.redirect_stderr(quiet), contextlib.redirect_stdout(quiet), \
            warnings.catch_warnings():
        warnings.simplefilter("ignore")
        verdicts = scoring.grade_item_in_process(exercise, item, namespace)
    points = scoring.item_points(verdicts)
    print(report_lines(item.title, verdicts, points, item.points))
    return points


def report_lines(title: str, verdicts: list, points: float, max_points: float) -> str:
    passed = sum(1 for verdict in verdicts if verdict.passed)
    lines = [f"{title}: {points:g} / {max_points:g} points "
             f"({passed} of {len(verdicts)} hidden tests passed)"]
    for verdict in verdicts:
        if not verdict.passed:
            lines.append(f"  FAIL  {verdict.case.name} (-{verdict.max_points:.2f})")
            lines.append(f"        {verdict.message}")
    return "\n".join(lines)
