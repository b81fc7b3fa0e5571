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
