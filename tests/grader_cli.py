"""Drive `python -m autograder` the way an instructor does: a class folder, a subprocess, the
files it writes. Shared by the tests that grade through the command line and the benchmark.
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from fixtures import RELEASE, place  # noqa: F401 (used by the tests)

from autograder.reference import REPOSITORY, SOLUTIONS
from autograder.rubric import EXERCISES, Exercise

GRADER = [sys.executable, "-m", "autograder"]


def wrong_kinds(exercise: Exercise) -> list[str]:
    """The wrong-corpus entries of an exercise as roster kinds, leaving out those that end at a
    time limit (their names say "forever" or "loop"): a benchmark of them measures the limit."""
    folder = REPOSITORY / "tests" / "corpus" / "wrong" / exercise.notebook
    return [f"wrong/{exercise.notebook}/{p.stem}" for p in sorted(folder.glob("*.py"))
            if not any(word in p.stem for word in ("forever", "loop"))]


@dataclass
class Grades:
    """grades.csv of one batch: (student, notebook) -> (score, max_score)."""

    rows: dict[tuple[str, str], tuple[float, float]]

    @classmethod
    def read(cls, out: Path) -> Grades:
        rows = {}
        with open(Path(out) / "grades.csv", newline="", encoding="utf-8") as handle:
            for row in csv.DictReader(handle):
                rows[(row["student"], row["notebook"])] = (float(row["score"]),
                                                           float(row["max_score"]))
        return cls(rows)

    def score(self, student: str, notebook: str) -> float:
        return self.rows[(student, notebook)][0]


def environment_with(folder: Path, bwrap: str | None = None) -> dict[str, str]:
    """An environment whose PATH finds only the grader's tools (python3, sh, env, this
    Python) and, as `bwrap`, the script `bwrap` or no bubblewrap at all."""
    tools = folder / "tools"
    tools.mkdir()
    for name in ("python3", "sh", "env"):
        found = shutil.which(name)
        if found:
            (tools / name).symlink_to(found)
    if bwrap is not None:
        (tools / "bwrap").write_text(bwrap)
        (tools / "bwrap").chmod(0o755)
    return {**os.environ, "PATH": f"{tools}:{Path(sys.executable).parent}"}


def grade_batch(submitted: Path, out: Path, *options: str, timeout: float = 600,
                env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([*GRADER, "grade-batch", str(submitted), "--out", str(out), *options],
                          cwd=REPOSITORY, capture_output=True, text=True, timeout=timeout,
                          env=env)


def grade(notebooks: list[Path], results: Path, *options: str,
          timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([*GRADER, "grade", *map(str, notebooks), "--results", str(results),
                           *options], cwd=REPOSITORY, capture_output=True, text=True,
                          timeout=timeout)


def item_scores(results_json: Path, exercise: Exercise) -> dict[str, float]:
    """Points per graded item of `exercise` in a Gradescope results.json, from its tests.

    A test belongs to an item when its name starts with the notebook and the item's title
    ("01_parse_cron_field · parse_cron_field: a star selects every minute 0-59")."""
    tests = json.loads(Path(results_json).read_text())["tests"]
    scores = {}
    for item in exercise.items:
        prefix = f"{exercise.notebook} · {item.title}"
        mine = [t for t in tests if t["name"] == prefix or t["name"].startswith(prefix + ":")]
        scores[item.grade_id] = round(sum(t["score"] for t in mine), 2)
    return scores


NBGRADER = str(Path(sys.executable).parent / "nbgrader")


def generate_course(course: Path) -> None:
    """Make `course` a temporary nbgrader course from a copy of solutions/ and our
    nbgrader_config.py, with every assignment that has a folder in solutions/ generated
    (notebooks/ and gradebook.db, as `make release` makes them)."""
    shutil.copytree(SOLUTIONS, course / "solutions")
    shutil.copy(REPOSITORY / "nbgrader_config.py", course / "nbgrader_config.py")
    for assignment in sorted({e.assignment for e in EXERCISES}):
        if (SOLUTIONS / assignment).is_dir():  # a missing one: test_release.py reports it
            subprocess.run([NBGRADER, "generate_assignment", assignment, "--force",
                            "--log-level=ERROR"], cwd=course, check=True, capture_output=True)


def nbgrader_course(course: Path, generated: Path | None = None) -> Path:
    """A temporary nbgrader course in `course`, with every assignment generated; submissions go
    in the returned submitted/ folder. `generated`, a course `generate_course` made (the tests'
    `generated_course` fixture), is copied instead of generating the assignments again; it is
    never changed."""
    if generated is None:
        generate_course(course)
    else:
        shutil.copytree(generated, course, symlinks=True, dirs_exist_ok=True)
    return course / "submitted"


def nbgrader_autograde(course: Path, *options: str,
                       groups: dict[str, tuple[str, ...]] | None = None,
                       refused: tuple[str, ...] = ()) -> dict[tuple[str, str], float]:
    """Run `nbgrader autograde` for every assignment of the course's submitted/ folder and
    read the points of the grade cells back from its gradebook: (student, notebook) -> score.

    Each assignment and each student pattern of `groups` (nbgrader's --student glob, mapped to
    options of its own) runs in a process of its own with a copy of the gradebook, so they can
    be autograded side by side.
    nbgrader may report an error only for the students in `refused` (it refuses a submission
    that holds none of the assignment's notebooks).
    """
    return NbgraderRuns(course, *options, groups=groups, refused=refused).scores()


class NbgraderRuns:
    """`nbgrader_autograde` started now and read back later (`scores`), so that a test can do
    other work while nbgrader runs."""

    def __init__(self, course: Path, *options: str,
                 groups: dict[str, tuple[str, ...]] | None = None,
                 refused: tuple[str, ...] = (), per_assignment: bool = True) -> None:
        """One `nbgrader autograde` per assignment and group, side by side; with
        `per_assignment=False`, one per group for every assignment (nbgrader's assignment
        glob "*"), which saves each process's start where the groups alone keep the machine
        busy."""
        import shutil

        groups = groups or {"*": ()}
        self.submitted = course / "submitted"
        self.refused = refused
        assignments = sorted({p.name for p in self.submitted.glob("*/*") if p.is_dir()}) \
            if per_assignment else ["*"]
        self.books = {(a, g): course / f"gradebook-{a.replace('*', 'all')}-{index}.db"
                      for a in assignments for index, g in enumerate(groups)
                      if any(self.submitted.glob(f"{g}/{a}/*.ipynb"))}
        for book in self.books.values():
            shutil.copy(course / "gradebook.db", book)
        self.running = {
            (assignment, group): subprocess.Popen(
                [NBGRADER, "autograde", assignment, f"--student={group}", "--log-level=ERROR",
                 f"--CourseDirectory.db_url=sqlite:///{book}", *options, *groups[group]],
                cwd=course, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            for (assignment, group), book in self.books.items()}

    def stop(self) -> None:
        for process in self.running.values():
            process.kill()
            process.wait()

    def scores(self) -> dict[tuple[str, str], float]:
        import re

        from nbgrader.api import Gradebook, MissingEntry

        for (assignment, group), process in self.running.items():
            _, errors = process.communicate()
            failed = set(re.findall(
                r"error processing assignment '[^']*' for student '([^']*)'", errors))
            if process.returncode != 0 and (not failed or not failed <= set(self.refused)):
                self.stop()
                raise RuntimeError(f"nbgrader autograde {assignment} --student={group} "
                                   f"failed:\n{errors[-3000:]}")
        scores = {}
        for (assignment, group), book in self.books.items():
            with Gradebook(f"sqlite:///{book}") as gradebook:
                for path in sorted(self.submitted.glob(f"{group}/{assignment}/*.ipynb")):
                    student, assignment_id = path.parts[-3], path.parts[-2]
                    try:
                        notebook = gradebook.find_submission_notebook(path.stem, assignment_id,
                                                                      student)
                    except MissingEntry:
                        continue  # not one of the assignment's notebooks: nbgrader skips it
                    scores[(student, path.stem)] = round(sum(
                        grade.score for grade in notebook.grades
                        if grade.name.startswith("test_")), 2)
        return scores
