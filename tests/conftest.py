"""Shared test set-up: the venv's tools on PATH (nbgrader needs them) and a headless backend."""

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


def pytest_sessionstart(session: pytest.Session) -> None:
    """In CI the sandbox tests must run, never be skipped for want of bubblewrap."""
    if os.environ.get("CI") == "true":
        from autograder.isolation import bwrap_works

        if not bwrap_works():
            raise pytest.UsageError(
                "CI needs a working bubblewrap (bwrap) for the sandbox tests; .ci/run installs it")
