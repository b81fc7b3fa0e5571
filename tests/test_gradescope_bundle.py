"""`python -m autograder gradescope ASSIGNMENT --out autograder.zip`, run as Gradescope runs it.

The bundle is unpacked into a fake `/autograder` tree in a temporary folder (`source/`,
`submission/`, `results/`); `setup.sh` installs the grader's packages into the local venv
(already there, so nothing is downloaded) and `run_autograder` grades an honest, a buggy
and a hostile submission into `results/results.json`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import fixtures
import nbformat
import pytest

from autograder import gradescope
from autograder.reference import REPOSITORY
from autograder.rubric import EXERCISES, exercise_for

BACKOFF = exercise_for("05_backoff_delays")
APPEND = exercise_for("06_append_if_new")
RESILIENCE = [e for e in EXERCISES if e.assignment == "resilience"]
TOP = sum(e.max_score for e in RESILIENCE)  # the assignment's points
# The bundle must run on its own: nothing from this checkout on the module path.
CLEAN_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}


def autograder(*args: object) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "autograder", *map(str, args)],
                          cwd=REPOSITORY, capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module")
def bundle(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("bundle") / "autograder.zip"
    done = autograder("gradescope", "resilience", "--out", out)
    assert done.returncode == 0, done.stderr
    names = zipfile.ZipFile(out).namelist()
    for needed in ("setup.sh", "run_autograder", "requirements.txt", "autograder/cli.py",
                   "autograder/suites/backoff_delays.py", "autograder/sandbox/worker.py",
                   *(f"solutions/{e.path}" for e in RESILIENCE), "data/README.md"):
        assert needed in names, f"{needed} is not in the bundle"
    assert not [n for n in names if n.startswith("solutions/schedules/")]
    return out


def fake_autograder(bundle: Path, root: Path, files: dict[str, object]) -> Path:
    """/autograder as Gradescope lays it out, under `root`, with the submission's files."""
    home = root / "autograder"
    with zipfile.ZipFile(bundle) as archive:
        archive.extractall(home / "source")
    for name in ("setup.sh", "run_autograder"):
        (home / "source" / name).chmod(0o755)
    (home / "results").mkdir(parents=True)
    for name, made in files.items():
        target = home / "submission" / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(made, Path):
            target.symlink_to(made)
        else:
            nbformat.write(made, str(target))
    return home


def run_autograder(home: Path) -> tuple[dict, subprocess.CompletedProcess]:
    env = {**CLEAN_ENV, "AUTOGRADER_ROOT": str(home), "PYTHON": sys.executable}
    done = subprocess.run(["bash", str(home / "source" / "run_autograder")], env=env,
                          cwd=home.parent, capture_output=True, text=True, timeout=300)
    if "bubblewrap" in done.stderr and done.returncode == 1:
        pytest.skip(f"the sandbox is not available here: {done.stderr[-300:]}")
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads((home / "results" / "results.json").read_text()), done


@pytest.mark.fast
def test_the_bundle_brings_the_network_filter_pinned_as_the_course_pins_it():
    """Gradescope's containers often cannot run bubblewrap, so its image needs what builds the
    fallback's network filter: libseccomp from apt, pyseccomp from pip, each requirement the
    bundle shares with requirements.txt written exactly as there."""
    course = {line.split(">")[0].split(";")[0]: line
              for line in (REPOSITORY / "requirements.txt").read_text().splitlines()
              if line and not line.startswith("#")}
    bundled = {line.split(">")[0].split(";")[0]: line
               for line in gradescope.REQUIREMENTS.splitlines() if line}
    assert "pyseccomp" in bundled
    assert {name: line for name, line in bundled.items() if name in course} == \
        {name: course[name] for name in bundled if name in course}
    assert " libseccomp2 " in gradescope.SETUP_SH


def test_setup_installs_the_graders_packages(bundle, tmp_path):
    home = fake_autograder(bundle, tmp_path, {})
    env = {**CLEAN_ENV, "SKIP_APT": "1", "PYTHON": sys.executable, "PIP_NO_INDEX": "1"}
    done = subprocess.run(["bash", str(home / "source" / "setup.sh")], env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    used = subprocess.run([sys.executable, "-c", "import autograder; print(autograder.__file__)"],
                          cwd=home / "source", env=CLEAN_ENV, capture_output=True, text=True)
    assert used.stdout.strip() == str(home / "source" / "autograder" / "__init__.py")


def test_a_grader_that_cannot_start_still_leaves_the_student_a_result(bundle, tmp_path):
    """A broken image (here PYTHON names a command that fails, as a missing interpreter or
    module would) leaves results.json saying what happened, and a failed exit status for
    Gradescope's log; setup.sh refuses a Python older than 3.10 in one sentence."""
    home = fake_autograder(bundle, tmp_path, {})
    env = {**CLEAN_ENV, "AUTOGRADER_ROOT": str(home), "PYTHON": "false"}
    done = subprocess.run(["bash", str(home / "source" / "run_autograder")], env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode != 0
    results = json.loads((home / "results" / "results.json").read_text())
    assert results["score"] == 0 and results["tests"] == []
    assert "could not grade this submission" in results["output"]
    old = tmp_path / "python3.8"
    old.write_text("#!/bin/sh\nexit 1\n")  # what `sys.exit(version < (3, 10))` says there
    old.chmod(0o755)
    done = subprocess.run(["bash", str(home / "source" / "setup.sh")],
                          env={**CLEAN_ENV, "SKIP_APT": "1", "PYTHON": str(old)},
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 1 and "needs Python 3.10 or later" in done.stderr, done.stderr


def test_an_honest_submission_earns_the_assignments_points(bundle, tmp_path):
    files: dict[str, object] = {f"{e.notebook}.ipynb": fixtures.honest_submission(e)
                                for e in RESILIENCE if e is not APPEND}
    files["my work/06_append_if_new (1).ipynb"] = fixtures.honest_submission(APPEND)
    home = fake_autograder(bundle, tmp_path, files)
    results, _ = run_autograder(home)
    assert (results["score"], results["max_score"]) == (TOP, TOP)
    assert {t["name"].split(" · ")[0] for t in results["tests"]} == {e.notebook for e in RESILIENCE}


def test_a_buggy_submission_loses_points_and_a_missing_notebook_counts_zero(bundle, tmp_path):
    entry = fixtures.read_corpus_entry(
        REPOSITORY / "tests/corpus/wrong/05_backoff_delays/global_random_unseeded.py")
    home = fake_autograder(bundle, tmp_path, {
        "05_backoff_delays.ipynb": fixtures.corpus_submission(entry)})
    results, _ = run_autograder(home)
    assert results["max_score"] == TOP
    assert 0 < results["score"] < BACKOFF.max_score
    assert f"06_append_if_new: 0 / {APPEND.max_score:g} points (not graded)" in results["output"]


def test_a_hostile_submission_cannot_write_its_own_results(bundle, tmp_path):
    results_file = tmp_path / "autograder" / "results" / "results.json"
    forge = (f"import json\ntry:\n    with open({str(results_file)!r}, 'w') as f:\n"
             "        json.dump({'score': 1000, 'max_score': 50, 'tests': []}, f)\n"
             "except OSError:\n    pass\nprint('{\"score\": 1000}')\n"
             "def backoff_delays(attempts, base, cap, seed):\n    raise NotImplementedError\n")
    home = fake_autograder(bundle, tmp_path, {
        "05_backoff_delays.ipynb": fixtures.build_submission(
            BACKOFF, {"answer_backoff_delays": forge}),
        # a link to the reference solution inside the container
        "06_append_if_new.ipynb": tmp_path / "autograder" / "source" / "solutions" /
        "resilience" / "06_append_if_new.ipynb"})
    results, _ = run_autograder(home)
    assert (results["score"], results["max_score"]) == (0, TOP)
    assert "symbolic link" in results["output"] or "symbolic link" in json.dumps(results)
