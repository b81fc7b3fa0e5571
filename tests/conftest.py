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


@pytest.fixture(scope="session")
def repository() -> Path:
    return REPOSITORY


def pytest_sessionstart(session: pytest.Session) -> None:
    """In CI the sandbox tests must run, never be skipped for want of bubblewrap."""
    if os.environ.get("CI") == "true":
        from autograder.runner import bwrap_works

        if not bwrap_works():
            raise pytest.UsageError(
                "CI needs a working bubblewrap (bwrap) for the sandbox tests; .ci/run installs it")
