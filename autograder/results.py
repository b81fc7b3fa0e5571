"""What grading one notebook produces: its tests, its graded items, the notebook's result.

Plain records that every report reads (results.json for Gradescope, report.md, grades.csv,
the nbgrader gradebook); `scoring.py` makes them from a sandbox run, `grading.py` from a file
that could not be graded.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

from .rubric import Exercise


@dataclass
class TestResult:
    __test__ = False  # a record, not a test class for pytest

    name: str
    score: float
    max_score: float
    output: str  # why it failed, or "passed"
    passed: bool
    # Gradescope's visibility: "visible" when the output may show the expected answer (a public
    # case, or --show-expected), else "after_due_date".
    visibility: str = "visible"


@dataclass
class ItemResult:
    grade_id: str
    title: str
    score: float
    max_score: float
    tests: list[TestResult]


@dataclass
class NotebookResult:
    path: str  # as the person who ran the grader named it
    notebook: str  # the exercise's notebook name, or the file's stem when not recognised
    assignment: str
    score: float
    max_score: float
    items: list[ItemResult] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    execution_time: float = 0.0
    stdout: str = ""
    stderr: str = ""
    readable: bool = True  # False when the file could not be read or recognised
    grader_failed: bool = False  # a bug in the grader, not the notebook: never saved
    # What the grader noticed as tampering (a refused file, forged or duplicated outcomes on
    # the results channel, poisoned probes, refused operations): one sentence each, for the
    # instructor.
    flags: list[str] = field(default_factory=list)
    timed_out: bool = False  # a cell, a test or the notebook hit a time limit: never final
    # The grader could not start one of its own processes for the notebook (the process limit
    # of the user running it, or the machine's): not graded, the grader's failure, never the
    # notebook's; grade-batch and grade then grade it again alone (grading.graded_alone).
    out_of_processes: bool = False
    # Why it is to be graded again alone, once the rest is done (grading.CROWDED): it did not
    # earn every point, and it may have been crowded out of the processes that every notebook
    # graded at once shares (run by an ordinary user without bubblewrap). Never saved as is.
    grade_alone: str = ""
    graded_again: str = ""  # why it was graded again alone, for the instructor (grades.csv)

    def to_dict(self) -> dict:
        """What `dataclasses.asdict` gives, built directly (asdict deep-copies every string of
        every test through a generic walk; a batch calls this for every notebook)."""
        data = dict(vars(self))
        data["items"] = [{**vars(item), "tests": [dict(vars(test)) for test in item.tests]}
                         for item in self.items]
        data["problems"], data["flags"] = list(self.problems), list(self.flags)
        return data

    @classmethod
    def from_dict(cls, data: dict) -> NotebookResult:
        items = [ItemResult(**{**item, "tests": [TestResult(**t) for t in item["tests"]]})
                 for item in data["items"]]
        return cls(**{**data, "items": items})


def not_graded(shown: str, exercise: Exercise | None, reason: str, path: Path) -> NotebookResult:
    if exercise is None:
        return NotebookResult(path=shown, notebook=Path(path).name.removesuffix(".ipynb"),
                              assignment="", score=0.0, max_score=0.0, problems=[reason],
                              readable=False)
    items = [ItemResult(item.grade_id, item.title, 0.0, item.points,
                        [TestResult(f"{exercise.notebook} · {item.title}", 0.0, item.points,
                                    f"not graded: {reason}", False)])
             for item in exercise.items]
    return NotebookResult(path=shown, notebook=exercise.notebook,
                          assignment=exercise.assignment, score=0.0,
                          max_score=exercise.max_score, items=items, problems=[reason],
                          readable=False)


def count_once(results: list[NotebookResult]) -> list[NotebookResult]:
    """One student's results with every exercise counted once: a second notebook of the same
    exercise (a Jupyter "-Copy1", the same file in another folder) scores nothing. The copy
    named exactly like the exercise counts, else the first one."""
    counted: dict[str, int] = {}
    for index, result in enumerate(results):
        if result.max_score <= 0:
            continue
        first = counted.get(result.notebook)
        if first is None or (_named_as_exercise(result)
                             and not _named_as_exercise(results[first])):
            counted[result.notebook] = index
    adjusted = []
    for index, result in enumerate(results):
        first = counted.get(result.notebook, index)
        if first == index or result.max_score <= 0:
            adjusted.append(result)
            continue
        why = (f"not counted: {results[first].path} is the notebook graded for "
               f"{result.notebook}; each exercise counts once")
        adjusted.append(replace(result, score=0.0, max_score=0.0, items=[],
                                problems=[why, *result.problems], readable=False))
    return adjusted


def _named_as_exercise(result: NotebookResult) -> bool:
    return Path(result.path).name == f"{result.notebook}.ipynb"
