"""Gradescope's autograder bundle for one assignment, and the command it runs there.

    python -m autograder gradescope schedules --out autograder.zip

builds what Gradescope's "Zip file upload" autograder expects, in the manner of otter-grader's
`otter generate`: `setup.sh` (run once when Gradescope builds the image: bubblewrap, libseccomp and
the Python packages the grader needs), `run_autograder` (run for every submission), the course's
grader (`autograder/`), the assignment's reference solutions and student copies, and `data/`.
Gradescope unpacks the zip into `/autograder/source/` and runs `run_autograder` from there.
It reads `/autograder/results/results.json` only inside its own container, so this bundle is
the way to put the course's grader there.

For each submission `run_autograder` calls `python -m autograder.gradescope run ASSIGNMENT
/autograder/submission /autograder/results/results.json`: every notebook of the upload, in any
folder layout, is recognised by its name or graded cells; one file counts per exercise (the
rule in `autograder/discovery.py`); notebooks of the assignment that are missing get 0 with a
reason, so the maximum is always the assignment's.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import zipfile
from pathlib import Path

from .rubric import ASSIGNMENTS, EXERCISES

PACKAGE = Path(__file__).resolve().parent
REPOSITORY = PACKAGE.parent
# What the grader itself imports, the zoneinfo data the suites use, and what builds the
# network filter for notebooks graded without bubblewrap, as Gradescope's containers often
# are (pinned like requirements.txt).
REQUIREMENTS = """\
nbformat>=5.9,<6
ipython>=8,<10
tzdata>=2024.1
tomli>=2; python_version < "3.11"
pyseccomp>=0.1.2,<0.2; sys_platform == "linux"
"""

SETUP_SH = """\
#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder's image.
# SKIP_APT=1 leaves out the system packages; PYTHON picks the interpreter (default python3).
set -euo pipefail
cd "$(dirname "$0")"
if [ -z "${SKIP_APT:-}" ] && command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap libseccomp2 python3 python3-pip
fi
if ! "${PYTHON:-python3}" -c 'import sys; sys.exit(sys.version_info < (3, 10))'; then
    echo "setup.sh: the grader needs Python 3.10 or later; set PYTHON or pick a newer image" >&2
    exit 1
fi
# Images whose system Python is marked externally managed (PEP 668, Ubuntu 24.04) refuse a plain
# install; this image exists only to grade, so the packages go into that Python all the same.
"${PYTHON:-python3}" -m pip install --quiet --disable-pip-version-check -r requirements.txt \\
    || "${PYTHON:-python3}" -m pip install --quiet --disable-pip-version-check \\
        --break-system-packages -r requirements.txt
"""

RUN_AUTOGRADER = """\
#!/usr/bin/env bash
# Gradescope runs this for every submission: /autograder/submission in,
# /autograder/results/results.json out. AUTOGRADER_ROOT replaces /autograder (for tests).
set -uo pipefail
ROOT="${AUTOGRADER_ROOT:-/autograder}"
RESULTS="$ROOT/results/results.json"
cd "$ROOT/source"
rm -f "$RESULTS"
"${PYTHON:-python3}" -m autograder.gradescope run %(assignment)s "$ROOT/submission" "$RESULTS"
status=$?
if [ ! -s "$RESULTS" ]; then  # the grader could not start or stopped: the student still hears
    mkdir -p "$ROOT/results"
    message="The autograder could not grade this submission (it stopped with exit status"
    message="$message $status before writing a result). Your work is not lost: tell your"
    message="$message instructor, who can see why in the debug output of this submission."
    printf '{"score": 0, "output": "%%s", "tests": []}\\n' "$message" > "$RESULTS"
fi
exit "$status"
"""


EXPECTED = "expected"  # the bundle's folder of stored expected values


class BundleError(Exception):
    """The bundle cannot be built; the message is one sentence for a person."""


def bundle_files(assignment: str) -> dict[str, Path | str]:
    """Name in the zip (its root becomes /autograder/source) -> a file or the text to write."""
    files: dict[str, Path | str] = {
        "setup.sh": SETUP_SH,
        "run_autograder": RUN_AUTOGRADER % {"assignment": assignment},
        "requirements.txt": REQUIREMENTS,
    }
    for path in sorted(PACKAGE.rglob("*.py")):
        if "__pycache__" not in path.parts:
            files[f"{path.relative_to(REPOSITORY).as_posix()}"] = path
    for path in sorted((REPOSITORY / "data").rglob("*")):
        if path.is_file():  # all of it: the stored expected values' fingerprint covers data/
            files[f"{path.relative_to(REPOSITORY).as_posix()}"] = path
    exercises = [exercise for exercise in EXERCISES if exercise.assignment == assignment]
    for exercise in exercises:
        for top in ("solutions", "notebooks"):
            path = REPOSITORY / top / exercise.path
            if not path.is_file():
                raise BundleError(f"{top}/{exercise.path} is missing; run `make release` first")
            files[f"{top}/{exercise.path}"] = path
    # The expected values, worked out once here, so that a student waiting for Gradescope's
    # result does not wait for them too (autograder/expected.py).
    from . import expected

    with tempfile.TemporaryDirectory() as folder:
        problems = expected.prepare(tuple(exercises), Path(folder))
        if problems:
            raise BundleError(problems[0])
        for path in sorted(Path(folder).glob("*.json")):
            files[f"{EXPECTED}/{path.name}"] = path.read_text(encoding="utf-8")
    return files


def build(assignment: str, out: Path) -> int:
    """Write the bundle for `assignment` to `out`; returns the number of files in it."""
    if assignment not in ASSIGNMENTS:
        raise BundleError(f"{assignment!r} is not an assignment of the course (expected one "
                          f"of {', '.join(ASSIGNMENTS)})")
    files = bundle_files(assignment)
    out = Path(out)
    if not out.parent.is_dir():
        raise BundleError(f"cannot write {out}: the folder {out.parent} does not exist")
    if out.is_dir():
        raise BundleError(f"--out {out} is a folder; name the zip file to write, such as "
                          f"{out / (assignment + '.zip')}")
    temporary = out.with_name(f".{out.name}.tmp")
    with zipfile.ZipFile(temporary, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, content in sorted(files.items()):
            info = zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            executable = name.endswith(("setup.sh", "run_autograder"))
            info.external_attr = (0o100755 if executable else 0o100644) << 16
            data = content.read_bytes() if isinstance(content, Path) else content.encode()
            archive.writestr(info, data)
    temporary.replace(out)
    return len(files)


def run(assignment: str, submission: Path, results: Path) -> int:
    """Grade one Gradescope submission of `assignment` into `results` (results.json)."""
    from . import classbook, deadlines, discovery, grading, isolation, processes, report

    sandbox = isolation.Isolation.choose("auto")
    if not sandbox.isolated:
        print("warning: bubblewrap does not work in this container, so student code runs "
              "with reduced isolation", file=sys.stderr)
        processes.become_subreaper()
    options = grading.Options(isolation=sandbox, processes=64)
    found = discovery.discover_upload(Path(submission), assignment)
    from . import expected

    exercises = tuple(dict.fromkeys(s.exercise for s in found.submissions
                                    if s.exercise is not None))
    for problem in expected.prepare(exercises, REPOSITORY / EXPECTED,
                                    lambda text: print(text, file=sys.stderr)):
        print(f"warning: {problem}", file=sys.stderr)
    graded = {s: grading.grade_safely(s.path, options, s.key, s.within)
              for s in found.submissions}
    rows = classbook.build(found, graded, deadlines.Policy(), {})
    report.write_results(results, [row.result for row in rows])
    print(report.report_markdown([row.result for row in rows]) + classbook.report_notes(rows))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m autograder.gradescope",
                                     description="Grade one Gradescope submission.")
    commands = parser.add_subparsers(dest="command", required=True)
    grade = commands.add_parser("run", help="grade /autograder/submission (run_autograder)")
    grade.add_argument("assignment", choices=ASSIGNMENTS)
    grade.add_argument("submission", type=Path)
    grade.add_argument("results", type=Path)
    args = parser.parse_args(argv)
    args.results.parent.mkdir(parents=True, exist_ok=True)
    return run(args.assignment, args.submission, args.results)


if __name__ == "__main__":
    raise SystemExit(main())
