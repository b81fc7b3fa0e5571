"""Expected outcomes, computed once per fingerprint and kept on disk.

Working out what the reference solution answers to every hidden case costs seconds (the
capstone's probes build databases and run threads); the answers change only when the grading
code, the data, an exercise's suites, probes, reference solution or student copy change. So a
run stores them in a folder (`grade-batch`: DIR/.expected/; `grade --expected DIR`; the
Gradescope bundle ships them), one file per exercise named by that fingerprint
(`batch.files_digest`), and a later run whose fingerprint matches reads them back instead
and says so. A file that is damaged, or not in the shape the harness produces, is ignored and
the answers are computed again. Answers are stored only when `grading.prepare`'s checks on the
reference (known probes, no unexpected exception, grade cells that run their own tests) found
nothing; the fingerprint covers every file those checks read, so stored answers are used
without making them again. Storing an exercise's answers removes those an earlier grader
stored for it (no run of this grader reads them).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

from . import batch, grading, scoring, suite
from .report import write_atomic
from .rubric import Exercise

COST_KEY = "reference_cpu_seconds"  # what the reference's hidden tests cost (grading.cost)
_STORED_NAME = re.compile(r"[0-9a-f]{24}\.json")  # after "<notebook>-": see _path


def _path(folder: Path, exercise: Exercise) -> Path:
    return Path(folder) / f"{exercise.notebook}-{batch.files_digest(exercise)[:24]}.json"


def _well_formed(outcome: object) -> bool:
    cleaned = scoring.clean_outcome(outcome)
    return cleaned is not None and cleaned == outcome and ("value" in cleaned
                                                           or "raised" in cleaned)


def load(folder: Path, exercise: Exercise) -> bool:
    """Use the stored outcomes of `exercise` when they match its fingerprint; True if used."""
    try:
        data = json.loads(_path(folder, exercise).read_text(encoding="utf-8"))
        stored = {}
        for item in exercise.items:
            outcomes = data[item.grade_id]
            if not (isinstance(outcomes, list) and len(outcomes) == len(suite.cases_for(item))
                    and all(_well_formed(outcome) for outcome in outcomes)):
                return False
            stored[item.grade_id] = tuple(outcomes)
    except (OSError, ValueError, KeyError, TypeError):
        return False
    for grade_id, outcomes in stored.items():
        suite.use_stored(grade_id, outcomes)
    grading.set_cost(exercise, data.get(COST_KEY, 0.0))
    return True


def save(folder: Path, exercise: Exercise) -> None:
    data: dict[str, object] = {item.grade_id: list(suite.expected_outcomes(item.grade_id))
                               for item in exercise.items}
    data[COST_KEY] = round(grading.cost(exercise), 4)
    path = _path(folder, exercise)
    write_atomic(path, json.dumps(data, ensure_ascii=True) + "\n")
    # What an earlier grader stored for this exercise: this one never reads it, and a folder
    # kept for a term would otherwise gain a set of files at every change of the grader.
    for stale in Path(folder).glob(f"{exercise.notebook}-*.json"):
        if stale != path and _STORED_NAME.fullmatch(stale.name[len(exercise.notebook) + 1:]):
            try:
                stale.unlink()
            except OSError:
                pass


def prepare(exercises: tuple[Exercise, ...], folder: Path | None,
            say: Callable[[str], None] = lambda text: None) -> list[str]:
    """`grading.prepare`, reading and writing stored outcomes in `folder` (None: no store)."""
    problems = []
    for exercise in exercises:
        reused = folder is not None and load(folder, exercise)
        if reused:
            say(f"expected values for {exercise.notebook} reused from {folder} (same "
                "fingerprint)")
            grading.prepared_from_store(exercise)
            continue
        found = grading.prepare((exercise,))
        problems += found
        if folder is not None and not found:
            try:
                save(folder, exercise)
            except OSError:
                pass  # the next run computes them again
    return problems
