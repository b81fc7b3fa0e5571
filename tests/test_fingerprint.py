"""Resumable batches regrade whenever anything that can change a verdict changed (issue 9, 12).

The fingerprint of an exercise covers every file of the grading package (found by listing it,
not a hand-kept list), the course data, the limits, and the exercise's own suites, probes,
reference solution and student copy. Each test edits a copy of the package, never the real one.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from autograder import batch, grading, isolation
from autograder.rubric import exercise_for

PARSE = exercise_for("01_parse_cron_field")
BACKOFF = exercise_for("05_backoff_delays")
OPTIONS = grading.Options(isolation=isolation.Isolation("none"))


@pytest.fixture
def package(tmp_path, monkeypatch) -> Path:
    copy = tmp_path / "autograder"
    shutil.copytree(batch.PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(batch, "PACKAGE", copy)
    monkeypatch.setattr(batch, "SUITES", copy / "suites")
    monkeypatch.setattr(batch, "PROBE_MODULES", copy / "sandbox" / "probes")
    return copy


@pytest.mark.parametrize("helper", ["sandbox/guard.py", "cli.py", "sandbox/new_helper.py",
                                    "suites/__init__.py", "sandbox/probes/__init__.py"])
def test_an_edit_to_any_helper_module_regrades_every_exercise(package, helper):
    before = {e.notebook: batch.fingerprint(OPTIONS, e) for e in (PARSE, BACKOFF)}
    path = package / helper
    path.write_text((path.read_text() if path.exists() else "") + "\nHELPER_CHANGED = 1\n")
    after = {e.notebook: batch.fingerprint(OPTIONS, e) for e in (PARSE, BACKOFF)}
    assert all(before[name] != after[name] for name in before), helper


def test_an_edit_to_one_exercise_suite_regrades_that_exercise_only(package):
    before = {e.notebook: batch.fingerprint(OPTIONS, e) for e in (PARSE, BACKOFF)}
    path = package / "suites" / "backoff_delays.py"
    path.write_text(path.read_text() + "\n# a changed case\n")
    after = {e.notebook: batch.fingerprint(OPTIONS, e) for e in (PARSE, BACKOFF)}
    assert before[BACKOFF.notebook] != after[BACKOFF.notebook]
    assert before[PARSE.notebook] == after[PARSE.notebook]


def test_limits_and_feedback_choices_are_part_of_the_fingerprint():
    base = batch.fingerprint(OPTIONS, PARSE)
    for changed in (grading.Options(isolation=OPTIONS.isolation, time_limit=30),
                    grading.Options(isolation=OPTIONS.isolation, memory_limit_mb=256),
                    grading.Options(isolation=OPTIONS.isolation, processes=8),
                    grading.Options(isolation=OPTIONS.isolation, show_expected=True)):
        assert batch.fingerprint(changed, PARSE) != base, changed
