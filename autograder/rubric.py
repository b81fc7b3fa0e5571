"""The course rubric: the one place where graded items and their points are written down.

Grade cells in `solutions/`, the hidden suites, nbgrader's gradebook and every report read
their numbers from here; `tests/test_rubric.py` fails when a notebook disagrees.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class GradedItem:
    """One grade cell: the hidden suite behind it and the points it is worth."""

    grade_id: str  # nbgrader grade_id of the grade cell that holds the hidden tests
    title: str  # what the student sees in reports
    points: float
    suite: str  # module in autograder.suites that holds the weighted cases


@dataclass(frozen=True)
class Exercise:
    """One notebook of the course."""

    assignment: str
    notebook: str  # file stem, for example "01_parse_cron_field"
    items: tuple[GradedItem, ...]
    time_limit: float = 60.0  # seconds for the whole notebook in the sandbox
    memory_limit_mb: int = 1024

    @property
    def max_score(self) -> float:
        return sum(item.points for item in self.items)

    @property
    def path(self) -> str:
        return f"{self.assignment}/{self.notebook}.ipynb"


def _item(name: str, points: float, title: str | None = None) -> GradedItem:
    return GradedItem(grade_id=f"test_{name}", title=title or name, points=points, suite=name)


EXERCISES: tuple[Exercise, ...] = (
    Exercise("schedules", "01_parse_cron_field", (_item("parse_cron_field", 25),)),
    Exercise("schedules", "02_cron_matches", (_item("cron_matches", 25),)),
    Exercise(
        "schedules",
        "03_next_run",
        (_item("next_run_minute", 10, "next_run_minute (warm-up)"), _item("next_run", 25)),
        time_limit=120.0,  # its hidden tests search months and years ahead, minute by minute
    ),
    Exercise("schedules", "04_run_order", (_item("run_order", 25),)),
    Exercise("resilience", "05_backoff_delays", (_item("backoff_delays", 25),)),
    Exercise("resilience", "06_append_if_new", (_item("append_if_new", 25),)),
    Exercise(
        "capstone",
        "07_safe_scheduler",
        (
            _item("run_key", 5, "safe scheduler: run_key"),
            _item("runs_table", 5, "safe scheduler: runs table and leases"),
            _item("job_flow", 5, "safe scheduler: job flow"),
            _item("proofs", 5, "safe scheduler: duplicate, recovery and gap proofs"),
            _item("scheduling", 5, "safe scheduler: scheduling"),
        ),
    ),
)

ASSIGNMENTS: tuple[str, ...] = tuple(dict.fromkeys(e.assignment for e in EXERCISES))
TOTAL_POINTS: float = sum(e.max_score for e in EXERCISES)


def exercise_for(notebook_name: str) -> Exercise | None:
    """The exercise whose notebook is called `notebook_name` (a stem or a file name)."""
    stem = notebook_name.rsplit("/", 1)[-1].removesuffix(".ipynb")
    for exercise in EXERCISES:
        if exercise.notebook == stem:
            return exercise
    return None


def item_for(grade_id: str) -> tuple[Exercise, GradedItem]:
    for exercise in EXERCISES:
        for item in exercise.items:
            if item.grade_id == grade_id:
                return exercise, item
    raise KeyError(f"no graded item has grade_id {grade_id!r}")
