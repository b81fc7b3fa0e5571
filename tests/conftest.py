"""Shared test set-up: the venv's tools on PATH (nbgrader needs them) and a headless backend."""

import fcntl
import os
import sys
from pathlib import Path

import pytest

REPOSITORY = Path(__file__).resolve().parent.parent
BIN = str(Path(sys.executable).parent)
if BIN not in os.environ.get("PATH", "").split(os.pathsep):
    os.environ["PATH"] = BIN + os.pathsep + os.environ.get("PATH", "")
os.environ.setdefault("MPLBACKEND", "Agg")


BROWSER_SUITE = REPOSITORY / "tests" / "browser"


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """The browser suite needs Chromium and runs on its own (`make test-browser`): `pytest tests`
    leaves it out unless it is named (`pytest tests/browser`)."""
    if collection_path != BROWSER_SUITE:
        return None
    named = [Path(str(arg).split("::")[0]).resolve() for arg in config.args]
    return not any(path == BROWSER_SUITE or BROWSER_SUITE in path.parents for path in named)


@pytest.fixture(scope="session")
def repository() -> Path:
    return REPOSITORY


@pytest.fixture(scope="session")
def generated_course(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A course that `nbgrader generate_assignment` made from a copy of solutions/ (see
    grader_cli.generate_course), made once per test run and shared by every pytest-xdist
    process of it: generating the assignments costs seconds of CPU, and the nbgrader tests and
    test_release.py all start from the same course. Read it or copy it, never change it."""
    from grader_cli import generate_course

    shared = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        shared = shared.parent  # the run's folder, above each process's own
    course = shared / "generated-course"
    with open(shared / "generated-course.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one process generates; the others wait and read it
        if not course.is_dir():
            making = tmp_path_factory.mktemp("generating-course")
            generate_course(making)
            making.rename(course)  # whole or not at all: a failed generation leaves none
    return course


def pytest_sessionstart(session: pytest.Session) -> None:
    """In CI the sandbox tests must run, never be skipped for want of bubblewrap."""
    if os.environ.get("CI") == "true":
        from autograder.isolation import bwrap_works

        if not bwrap_works():
            raise pytest.UsageError(
                "CI needs a working bubblewrap (bwrap) for the sandbox tests; .ci/run installs it")
