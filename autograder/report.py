"""Write grading results for people and for tools: Gradescope results.json, a readable report,
and the class gradebook CSV. Every file is written atomically (temporary file, then rename).

Text that came from a submission (messages, values, file and folder names) goes through
`escape` for the place it lands: encodable JSON, literal Markdown, inert CSV cells.
"""

from __future__ import annotations

import csv
import io
import json
import os
import tempfile
from pathlib import Path

from . import escape
from .results import NotebookResult

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
            stream.write(escape.text(text))
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


def _lines(value: object) -> str:
    """Text shown as plain text (Gradescope's output): its lines kept, any other control or
    format character within them shown as an escape, so no submission text forges a line."""
    return "\n".join(escape.terminal(line) for line in escape.text(value).split("\n"))


def results_json(results: list[NotebookResult]) -> dict:
    """Gradescope's results.json for one student's notebooks. Every text is plain text in which
    each problem, name and file name is one line of its own (`escape.terminal`), a problem
    at most 2,000 characters (`escape.one_line`: its notes name up to ten of the upload's
    files, each as deep in folders as discovery looks)."""
    score, max_score = total(results)
    tests = []
    lines = []
    for result in results:
        lines.append(escape.terminal(summary_line(result)))
        if len(result.items) > 1:
            lines += [f"  {item.title}: {points(item.score)} / {points(item.max_score)}"
                      for item in result.items]
        lines += [f"  problem: {escape.one_line(problem)}" for problem in result.problems]
        for item in result.items:
            tests += [{"name": escape.terminal(test.name), "score": test.score,
                       "max_score": test.max_score, "output": _lines(test.output),
                       "visibility": test.visibility}
                      for test in item.tests]
        if not result.items:
            tests.append({"name": escape.terminal(result.path), "score": 0.0, "max_score": 0.0,
                          "output": escape.one_line("; ".join(result.problems)),
                          "visibility": "visible"})
    return escape.plain_json({
        "score": score,
        "max_score": max_score,
        "execution_time": round(sum(r.execution_time for r in results), 3),
        "output": "\n".join(lines),
        "output_format": "text",
        "test_output_format": "text",
        "test_name_format": "text",
        "visibility": "visible",
        "stdout_visibility": "hidden",
        "tests": tests,
    })


# What a failed test says when the function still raises the release's NotImplementedError
# (the wording of a public case, then of a hidden one).
UNWRITTEN = ("got NotImplementedError", "gave NotImplementedError")


def _failed_lines(item) -> list[str]:
    """One line per failed test; one line in all for an item that was never written."""
    failed = [test for test in item.tests if not test.passed]
    if failed and len(failed) == len(item.tests) and all(
            any(text in test.output for text in UNWRITTEN) for test in failed):
        return [f"- **{item.title}**: not written yet (all {len(failed)} hidden tests got "
                "NotImplementedError, the untouched stub's answer)"]
    lines = []
    for test in failed:
        name = test.name.split(": ", 1)[-1] if ": " in test.name else test.name
        lines.append(f"- **{escape.one_line(name)}** (-{points(test.max_score)}): "
                     f"{escape.code_span(test.output)}")
    return lines


def report_markdown(results: list[NotebookResult], who: str = "") -> str:
    """A report a student can read: points per notebook, failed tests and why, problems."""
    score, max_score = total(results)
    lines = [f"# Grading report{': ' + escape.code_span(who) if who else ''}", "",
             f"**Total: {points(score)} / {points(max_score)} points**", ""]
    for result in results:
        where = f"{result.assignment}/{result.notebook}" if result.assignment else result.notebook
        lines += [f"## {escape.code_span(where)}: {points(result.score)} / "
                  f"{points(result.max_score)} points", "",
                  f"File: {escape.code_span(result.path)}", ""]
        for item in result.items:
            passed = sum(test.passed for test in item.tests)
            how = f"{passed} of {len(item.tests)} hidden tests passed" if result.readable \
                else "not graded"
            lines.append(f"- {escape.one_line(item.title)}: {points(item.score)} / "
                         f"{points(item.max_score)} points, {how}")
        if result.items:
            lines.append("")
        if result.problems:
            lines += ["Problems:", ""] + [f"- {escape.code_span(problem)}"
                                          for problem in result.problems] + [""]
        failed = [test for item in result.items for test in item.tests if not test.passed]
        if failed and result.readable:
            lines += ["Failed tests:", ""]
            for item in result.items:
                lines += _failed_lines(item)
            lines.append("")
        if result.stderr.strip():
            shown = result.stderr[:OUTPUT_SHOWN]
            more = " (shortened)" if len(result.stderr) > OUTPUT_SHOWN else ""
            lines += [f"What the notebook wrote to stderr{more}:", "",
                      escape.code_block(shown), ""]
    return "\n".join(lines).rstrip() + "\n"


GRADEBOOK_COLUMNS = ("student", "assignment", "notebook", "score", "max_score",
                     "submitted_at", "late_by", "penalty", "override", "note", "flags")
FLAGS_COLUMNS = ("student", "assignment", "notebook", "flag")


def csv_table(header: tuple[str, ...], rows: list[list[str]], sort_columns: int = 0) -> str:
    """Every cell quoted, one line each, and none that a spreadsheet reads as a formula; a
    first column of students is written by `escape.csv_key`, so no two share a cell. With
    `sort_columns`, rows are sorted by their first cells as written (escaped), so that tables
    of shards merged later sort exactly like the table of one run."""
    first = escape.csv_key if header[:1] == ("student",) else escape.csv_cell
    cells = [[first(row[0]), *(escape.csv_cell(cell) for cell in row[1:])] if row else []
             for row in rows]
    if sort_columns:
        cells.sort(key=lambda row: row[:sort_columns])
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n", quoting=csv.QUOTE_ALL)
    writer.writerow(header)
    writer.writerows(cells)
    return buffer.getvalue()


def grades_csv(rows: list[tuple]) -> str:
    """The class gradebook, one row per notebook, sorted by student, assignment, notebook (as
    they appear in the file, so that shards merged later sort the same way).

    A row is (student, assignment, notebook, score, max_score, *the other GRADEBOOK_COLUMNS):
    `note` says why a notebook looks as it does, `flags` (a list) what the grader noticed as
    tampering."""
    lines = []
    for row in rows:
        student, assignment, notebook, score, max_score, *rest = row
        rest = list(rest) + [""] * (len(GRADEBOOK_COLUMNS) - 5 - len(rest))
        if isinstance(rest[-1], list | tuple):
            rest[-1] = "; ".join(rest[-1])
        lines.append([student, assignment, notebook, points(score), points(max_score), *rest])
    return csv_table(GRADEBOOK_COLUMNS, lines, sort_columns=3)


def flags_csv(rows: list[tuple[str, str, str, str]]) -> str:
    """One row per flag: (student, assignment, notebook, what the grader noticed)."""
    return csv_table(FLAGS_COLUMNS, [list(row) for row in rows], sort_columns=4)


def write_results(path: Path, results: list[NotebookResult]) -> None:
    write_atomic(path, json.dumps(results_json(results), indent=2, ensure_ascii=False) + "\n")
