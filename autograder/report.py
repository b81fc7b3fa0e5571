"""Write grading results for people and for tools: Gradescope results.json, a readable report,
and the class gradebook CSV. Every file is written atomically (temporary file, then rename).
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
import tempfile
from pathlib import Path

from .grading import NotebookResult

OUTPUT_SHOWN = 2000  # characters of a notebook's stderr shown in a report


def points(value: float) -> str:
    """25.0 -> "25", 20.4567 -> "20.46"."""
    return f"{round(value, 2):g}"


def write_atomic(path: Path, text: str) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="") as stream:
            stream.write(text)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def total(results: list[NotebookResult]) -> tuple[float, float]:
    return (round(sum(r.score for r in results), 2), round(sum(r.max_score for r in results), 2))


def summary_line(result: NotebookResult) -> str:
    tests = [test for item in result.items for test in item.tests]
    if not result.readable:
        return f"{result.notebook}: {points(result.score)} / {points(result.max_score)} points " \
               "(not graded)"
    passed = sum(test.passed for test in tests)
    return (f"{result.notebook}: {points(result.score)} / {points(result.max_score)} points "
            f"({passed} of {len(tests)} hidden tests passed)")


def results_json(results: list[NotebookResult]) -> dict:
    """Gradescope's results.json for one student's notebooks."""
    score, max_score = total(results)
    tests = []
    lines = []
    for result in results:
        lines.append(summary_line(result))
        if len(result.items) > 1:
            lines += [f"  {item.title}: {points(item.score)} / {points(item.max_score)}"
                      for item in result.items]
        lines += [f"  problem: {problem}" for problem in result.problems]
        for item in result.items:
            tests += [{"name": test.name, "score": test.score, "max_score": test.max_score,
                       "output": test.output, "visibility": test.visibility}
                      for test in item.tests]
        if not result.items:
            tests.append({"name": result.path, "score": 0.0, "max_score": 0.0,
                          "output": "; ".join(result.problems), "visibility": "visible"})
    return {
        "score": score,
        "max_score": max_score,
        "execution_time": round(sum(r.execution_time for r in results), 3),
        "output": "\n".join(lines),
        "visibility": "visible",
        "stdout_visibility": "hidden",
        "tests": tests,
    }


def _fenced(text: str) -> str:
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}text\n{text}\n{fence}"


UNWRITTEN = "got NotImplementedError"


def _failed_lines(item) -> list[str]:
    """One line per failed test; one line in all for an item that was never written."""
    failed = [test for test in item.tests if not test.passed]
    if failed and len(failed) == len(item.tests) and all(
            UNWRITTEN in test.output for test in failed):
        return [f"- **{item.title}**: not written yet (all {len(failed)} hidden tests got "
                "NotImplementedError, the untouched stub's answer)"]
    lines = []
    for test in failed:
        name = test.name.split(": ", 1)[-1] if ": " in test.name else test.name
        lines.append(f"- **{name}** (-{points(test.max_score)}): {test.output}")
    return lines


def report_markdown(results: list[NotebookResult], who: str = "") -> str:
    """A report a student can read: points per notebook, failed tests and why, problems."""
    score, max_score = total(results)
    lines = [f"# Grading report{': ' + who if who else ''}", "",
             f"**Total: {points(score)} / {points(max_score)} points**", ""]
    for result in results:
        where = f"{result.assignment}/{result.notebook}" if result.assignment else result.notebook
        lines += [f"## {where}: {points(result.score)} / {points(result.max_score)} points", "",
                  f"File: `{result.path}`", ""]
        for item in result.items:
            passed = sum(test.passed for test in item.tests)
            how = f"{passed} of {len(item.tests)} hidden tests passed" if result.readable \
                else "not graded"
            lines.append(f"- {item.title}: {points(item.score)} / {points(item.max_score)} "
                         f"points, {how}")
        if result.items:
            lines.append("")
        if result.problems:
            lines += ["Problems:", ""] + [f"- {problem}" for problem in result.problems] + [""]
        failed = [test for item in result.items for test in item.tests if not test.passed]
        if failed and result.readable:
            lines += ["Failed tests:", ""]
            for item in result.items:
                lines += _failed_lines(item)
            lines.append("")
        if result.stderr.strip():
            shown = result.stderr[:OUTPUT_SHOWN]
            more = " (shortened)" if len(result.stderr) > OUTPUT_SHOWN else ""
            lines += [f"What the notebook wrote to stderr{more}:", "", _fenced(shown), ""]
    return "\n".join(lines).rstrip() + "\n"


GRADEBOOK_COLUMNS = ("student", "assignment", "notebook", "score", "max_score")


def grades_csv(rows: list[tuple[str, str, str, float, float]]) -> str:
    """The class gradebook, one row per notebook, sorted by student, assignment, notebook."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(GRADEBOOK_COLUMNS)
    for student, assignment, notebook, score, max_score in sorted(rows):
        writer.writerow([student, assignment, notebook, points(score), points(max_score)])
    return buffer.getvalue()


def write_results(path: Path, results: list[NotebookResult]) -> None:
    write_atomic(path, json.dumps(results_json(results), indent=2, ensure_ascii=False) + "\n")
