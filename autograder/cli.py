"""The grader's command line: `python -m autograder grade ...` and `grade-batch ...`.

Exit status: 0 when every notebook received a result (a notebook that cannot be read or
graded gets 0 points and a message), 1 when --sandbox=required finds no working bubblewrap,
2 for a usage error, 130 when interrupted. Errors are one sentence on stderr, never a traceback.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from . import batch, grading, report, runner

DEFAULT_JOBS = max(1, min(8, os.cpu_count() or 1))

DESCRIPTION = """\
Grade course notebooks against the hidden suites, running student code in a sandbox.

Each notebook runs in its own worker process under an unprivileged uid of its own. With
bubblewrap (Debian package bubblewrap) the worker has no network, sees only Python, the
sandbox probes and data/ (read-only), writes only to a size-limited scratch folder, and every
process it starts ends with it. Expected values are computed outside the sandbox from
solutions/, and only plain data comes back. Without bubblewrap the grader warns and runs with
reduced isolation (same limits, no namespaces).

Defaults: time limit per notebook from the rubric (60 s), per test case 5 s unless the suite
says otherwise, per cell min(10 s, time limit / 4); memory limit 1024 MiB; student output kept
up to 64 KiB per stream.
"""


class UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one sentence, exit status 2
        self.exit(2, f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m autograder", description=DESCRIPTION,
                     formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    commands.required = True

    def common(sub: argparse.ArgumentParser) -> None:
        sub.add_argument("--jobs", type=int, default=DEFAULT_JOBS, metavar="N",
                         help=f"notebooks graded at once (default {DEFAULT_JOBS})")
        sub.add_argument("--time-limit", type=float, metavar="SECONDS",
                         help="CPU-time limit per notebook (default: the rubric's, 60 s); "
                              "a notebook that only waits is stopped after twice that plus 20 s")
        sub.add_argument("--memory-limit", type=int, metavar="MIB",
                         help="memory limit per notebook (default: the rubric's, 1024 MiB)")
        sub.add_argument("--sandbox", choices=("auto", "required", "off"), default="auto",
                         help="auto (default): bubblewrap if it works, else reduced isolation "
                              "with a warning; required: refuse to grade without bubblewrap; "
                              "off: no isolation, UNSAFE, for debugging the grader only")
        sub.add_argument("--show-expected", action="store_true",
                         help="show the expected answer of every failed hidden test in the "
                              "feedback (for after the deadline; by default only the "
                              "notebook's own examples show theirs)")

    grade = commands.add_parser(
        "grade", help="grade one student's notebooks into one results.json",
        description="Grade one student's notebooks; write Gradescope's results.json and print "
                    "a readable report.")
    grade.add_argument("notebooks", nargs="+", metavar="NOTEBOOK", type=Path)
    grade.add_argument("--results", required=True, type=Path, metavar="FILE",
                       help="where to write results.json (Gradescope schema)")
    grade.add_argument("--report", type=Path, metavar="FILE",
                       help="also write the readable report (markdown) to FILE")
    common(grade)

    grade_batch = commands.add_parser(
        "grade-batch", help="grade a class laid out as SUBMITTED/<student>/<assignment>/*.ipynb",
        description="Grade a class; write DIR/grades.csv, DIR/<student>/results.json and "
                    "DIR/<student>/report.md. A rerun grades only new or changed notebooks.")
    grade_batch.add_argument("submitted", type=Path, metavar="SUBMITTED")
    grade_batch.add_argument("--out", required=True, type=Path, metavar="DIR")
    grade_batch.add_argument("--force", action="store_true",
                             help="grade every notebook again, ignoring saved results")
    common(grade_batch)
    return parser


def _options(args: argparse.Namespace) -> grading.Options:
    if args.jobs < 1:
        raise UsageError("--jobs must be at least 1")
    if args.time_limit is not None and not 0 < args.time_limit <= 24 * 3600:
        raise UsageError("--time-limit must be a number of seconds above 0")
    if args.memory_limit is not None and args.memory_limit < 64:
        raise UsageError("--memory-limit must be at least 64 (MiB)")
    sandbox = runner.Sandbox.choose(args.sandbox)  # may raise SandboxUnavailable
    if args.sandbox == "off":
        print("warning: --sandbox=off runs student code without isolation; use it only to "
              "debug the grader", file=sys.stderr)
    elif not sandbox.isolated:
        print("warning: bubblewrap (bwrap) is not available, so student code runs with reduced "
              "isolation (no file-system, network or process namespaces); install the Debian "
              "package bubblewrap, or pass --sandbox=required to refuse", file=sys.stderr)
    if not sandbox.isolated:
        runner.become_subreaper()
    # Every sandbox runs as a uid of its own, so the process limit is per notebook.
    return grading.Options(sandbox=sandbox, time_limit=args.time_limit,
                           memory_limit_mb=args.memory_limit, processes=64,
                           show_expected=args.show_expected)


def _grade(args: argparse.Namespace) -> int:
    results_folder = args.results.parent if str(args.results.parent) else Path(".")
    if not results_folder.is_dir():
        raise UsageError(f"cannot write --results {args.results}: the folder "
                         f"{results_folder} does not exist")
    if args.results.is_dir():
        raise UsageError(f"--results {args.results} is a folder; name a file")
    missing = [str(path) for path in args.notebooks if not path.exists() and not path.is_symlink()]
    if missing:
        raise UsageError(f"no such notebook: {', '.join(missing)}")
    options = _options(args)
    _prepare(grading.exercises_in(args.notebooks))
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        results = grading.count_once(list(pool.map(
            lambda path: grading.grade_safely(path, options), args.notebooks)))
    report.write_results(args.results, results)
    text = report.report_markdown(results)
    if args.report:
        report.write_atomic(args.report, text)
    print(text, end="")
    return 0


def _prepare(exercises: tuple) -> None:
    for problem in grading.prepare(exercises):
        print(f"warning: {problem}", file=sys.stderr)


def _grade_batch(args: argparse.Namespace) -> int:
    options = _options(args)
    summary = batch.grade_batch(args.submitted, args.out, options, jobs=args.jobs,
                                force=args.force, prepare=_prepare)
    print(summary.line(args.out), file=sys.stderr)
    return 130 if summary.interrupted else 0


def _terminate(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    signal.signal(signal.SIGTERM, _terminate)
    try:
        if args.command == "grade":
            return _grade(args)
        return _grade_batch(args)
    except (UsageError, batch.BatchError) as error:
        print(f"python -m autograder {args.command}: error: {error}", file=sys.stderr)
        return 2
    except runner.SandboxUnavailable as error:
        print(f"python -m autograder {args.command}: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        runner.stop_all()
        print(f"python -m autograder {args.command}: interrupted", file=sys.stderr)
        return 130
