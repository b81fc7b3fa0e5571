"""The grader's command line: `python -m autograder grade ...`, `grade-batch ...`, `export ...`
and `gradescope ...`.

Exit status: 0 when every notebook received a result (a notebook that cannot be read or
graded gets 0 points and a message), 1 when --sandbox=required finds no working bubblewrap,
2 for a usage error, 130 when interrupted. Errors are one sentence on stderr, never a traceback.
"""

from __future__ import annotations

import argparse
import dataclasses
import logging
import os
import signal
import sys
from pathlib import Path
from typing import NoReturn

from . import (
    batch,
    deadlines,
    escape,
    export,
    gradescope,
    grading,
    isolation,
    overrides,
    processes,
    report,
    runner,
    shard,
)
from .isolation import INTERPRETER_MB


def default_jobs(cores: int | None = None, memory: int | None = None) -> int:
    """Notebooks graded at once: one more than the cores, for a sandbox also spends part of its
    life starting, waiting on pipes and being torn down; at most 8, and no more than the memory
    holds at the default limit. Time limits are CPU time, so scores do not change. On 2 cores,
    3 at once graded 1,603 honest notebooks in 78-80 s against 82-92 s with 4 (which is 3%
    faster on the 21 notebooks of the reference class, where starting and ending weigh more)."""
    cores = cores or os.cpu_count() or 1
    if memory is None:
        try:
            memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
        except (AttributeError, ValueError, OSError):
            memory = 0
    per_sandbox = (runner.Limits().memory_mb + INTERPRETER_MB) * 2**20
    held = memory // per_sandbox if memory > 0 else 8
    return max(1, min(8, cores + 1, held))


DEFAULT_JOBS = default_jobs()

log = logging.getLogger(__name__)

DESCRIPTION = """\
Grade course notebooks against the hidden suites, running student code in a sandbox.

Each notebook runs in its own worker process (as root: under an unprivileged uid of its own). With
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
    def error(self, message: str) -> NoReturn:  # one sentence, exit status 2
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
                              "off: never bubblewrap, even where it works: the fallback's "
                              "reduced isolation, UNSAFE, for debugging the grader only")
        sub.add_argument("-v", "--verbose", action="store_true",
                         help="say on stderr what the sandbox could and could not set up: "
                              "whether bubblewrap works (and why not), its options, the "
                              "seccomp filters, Landlock, control groups")
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
    grade.add_argument("--expected", type=Path, metavar="DIR",
                       help="keep the expected values in DIR and reuse them on later runs "
                            "with the same grader (grade-batch keeps them in OUT/.expected)")
    common(grade)

    grade_batch = commands.add_parser(
        "grade-batch", help="grade a class laid out as SUBMITTED/<student>/<assignment>/*.ipynb",
        description="Grade a class; write DIR/grades.csv, DIR/not-graded.csv, DIR/flags.csv "
                    "(tampering noticed), DIR/students/<student>/<assignment>/results.json and "
                    "DIR/students/<student>/report.md. "
                    "A rerun grades only new or changed notebooks.")
    grade_batch.add_argument("submitted", type=Path, metavar="SUBMITTED")
    grade_batch.add_argument("--out", required=True, type=Path, metavar="DIR")
    grade_batch.add_argument("--force", action="store_true",
                             help="grade every notebook again, ignoring saved results")
    grade_batch.add_argument("--assignment", metavar="NAME",
                             help="grade only this assignment (default: every assignment "
                                  "that at least one student submitted)")
    grade_batch.add_argument("--deadlines", type=Path, metavar="FILE",
                             help="due dates, extensions and late policy (TOML; default "
                                  "DIR/deadlines.toml when it exists, else no late policy)")
    grade_batch.add_argument("--overrides", type=Path, metavar="FILE",
                             help="instructor overrides, CSV student,notebook,score,reason "
                                  "(default DIR/overrides.csv when it exists)")
    grade_batch.add_argument("--shard", metavar="K/N",
                             help="grade only the students of shard K of N (a stable partition "
                                  "by student; auto/N reads K from JOB_COMPLETION_INDEX or "
                                  "SLURM_ARRAY_TASK_ID, and auto alone also reads N from "
                                  "SLURM_ARRAY_TASK_COUNT); join the shards with merge")
    common(grade_batch)

    merge = commands.add_parser(
        "merge", help="join the output folders of grade-batch --shard K/N into one",
        description="Join shard output folders into the folder one grade-batch run would have "
                    "written; refuses shards graded with different graders, suites or limits.")
    merge.add_argument("shards", nargs="+", type=Path, metavar="SHARD_DIR")
    merge.add_argument("--out", required=True, type=Path, metavar="DIR")

    gradescope = commands.add_parser(
        "gradescope", help="build Gradescope's autograder bundle for one assignment",
        description="Build Gradescope's autograder zip (setup.sh, run_autograder, the grader, "
                    "suites and reference solutions) for one assignment.")
    gradescope.add_argument("assignment", metavar="ASSIGNMENT")
    gradescope.add_argument("--out", required=True, type=Path, metavar="ZIP")

    export = commands.add_parser(
        "export", help="export DIR/grades.csv for an LMS (Canvas) or as plain CSV",
        description="One row per student, one column per assignment (after late penalties "
                    "and overrides).")
    export.add_argument("folder", type=Path, metavar="DIR")
    export.add_argument("--format", choices=("canvas", "csv"), default="csv",
                        help="canvas: Canvas's gradebook import; csv (default): one plain table")
    export.add_argument("--roster", type=Path, metavar="FILE",
                        help="CSV mapping student (the folder name) to lms_id, and for Canvas "
                             "name, sis_user_id, sis_login_id, section")
    export.add_argument("--missing", choices=("zero", "blank"), default="zero",
                        help="what a student who submitted nothing for an assignment gets "
                             "(default zero)")
    export.add_argument("--title", action="append", default=[], metavar="ASSIGNMENT=COLUMN",
                        help="the column title of an assignment (Canvas: 'Name (id)')")
    export.add_argument("--out", type=Path, metavar="FILE",
                        help="where to write (default DIR/export-canvas.csv or DIR/export.csv)")
    return parser


def _options(args: argparse.Namespace) -> grading.Options:
    if args.jobs < 1:
        raise UsageError("--jobs must be at least 1")
    if args.time_limit is not None and not 0 < args.time_limit <= 24 * 3600:
        raise UsageError("--time-limit must be a number of seconds above 0")
    if args.memory_limit is not None and args.memory_limit < 64:
        raise UsageError("--memory-limit must be at least 64 (MiB)")
    # Before bubblewrap first runs (choose tries it): see processes.become_subreaper.
    reaping = processes.become_subreaper()
    sandbox = isolation.Isolation.choose(args.sandbox)  # may raise SandboxUnavailable
    if args.sandbox == "off":
        print("warning: --sandbox=off runs student code without bubblewrap, with the "
              "fallback's reduced isolation; use it only to debug the grader", file=sys.stderr)
    elif not sandbox.isolated:
        print("warning: bubblewrap (bwrap) is not available, so student code runs with reduced "
              "isolation (no file-system, network or process namespaces); install the Debian "
              "package bubblewrap, or pass --sandbox=required to refuse", file=sys.stderr)
    if args.sandbox == "off":
        log.info("sandbox: off (--sandbox=off), so bubblewrap is not tried")
    if sandbox.isolated:
        if reaping:
            log.info("sandbox: this process adopts what a sandbox leaves behind when it ends "
                     "(PR_SET_CHILD_SUBREAPER; the relay is the sandbox's first process, which "
                     "bubblewrap waits for, so nothing should be left) and reaps it after each "
                     "notebook")
    else:
        log.info("sandbox: unisolated worker processes: no namespaces (Landlock and the network "
                 "filter, where they work, each get a line of their own); each notebook still "
                 "drops to a uid of its own when the grader runs as root")
        if reaping:
            log.info("sandbox: this process adopts what a notebook leaves running "
                     "(PR_SET_CHILD_SUBREAPER) and ends it after each notebook")
        else:
            log.warning("sandbox: this process could not become a subreaper, so a process "
                        "that escapes a notebook's process group may outlive it")
    # As root every sandbox runs as a uid of its own, so the process limit is per notebook;
    # where they share the user's uid, it is theirs together (jobs: runner.Limits.sandboxes).
    return grading.Options(isolation=sandbox, time_limit=args.time_limit,
                           memory_limit_mb=args.memory_limit, processes=64,
                           show_expected=args.show_expected, jobs=args.jobs)


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
    if args.expected is not None:  # the stored expected values: out of the notebooks' reach
        options = dataclasses.replace(options, private=(str(args.expected.resolve()),))
    # The first workers start, and their notebooks run, while this process reads expected
    # values (grading.start_ahead, grading.grade_notebooks).
    with grading.start_ahead(args.notebooks, options, args.jobs) as ahead:
        results = grading.grade_notebooks(
            args.notebooks, options, args.jobs, ahead,
            lambda: _prepare(grading.exercises_in(args.notebooks), args.expected))
    report.write_results(args.results, results)
    for result in results:
        for flag in result.flags:
            print(f"tampering noticed in {escape.one_line(result.path, 200)}: "
                  f"{escape.one_line(flag, 300)}", file=sys.stderr)
    text = report.report_markdown(results)
    if args.report:
        report.write_atomic(args.report, text)
    print(text, end="")
    return 0


def _prepare(exercises: tuple, store: Path | None = None) -> None:
    """Work out (or read back from `store`) the expected values of `exercises`."""
    from . import expected

    for problem in expected.prepare(exercises, store,
                                    lambda text: print(text, file=sys.stderr)):
        print(f"warning: {problem}", file=sys.stderr)


def _instructor_file(given: Path | None, out: Path, name: str) -> Path | None:
    if given is not None:
        if not given.is_file():
            raise UsageError(f"{given} does not exist or is not a file")
        return given
    default = out / name
    return default if default.is_file() else None


def _grade_batch(args: argparse.Namespace) -> int:
    try:
        policy = deadlines.load(_instructor_file(args.deadlines, args.out, "deadlines.toml"))
        found, warnings = overrides.load(_instructor_file(args.overrides, args.out,
                                                          "overrides.csv"))
    except (deadlines.DeadlineError, overrides.OverrideError) as error:
        raise UsageError(str(error)) from None
    for warning in warnings:
        print(f"warning: {escape.terminal(warning)}", file=sys.stderr)
    try:
        part = shard.parse_shard(args.shard) if args.shard else shard.ALL
    except shard.ShardError as error:
        raise UsageError(str(error)) from None
    # The class's work and the output folder (its stored expected values among it): out of
    # every notebook's reach, wherever they are.
    options = dataclasses.replace(_options(args), private=(str(args.submitted.resolve()),
                                                           str(args.out.resolve())))
    store = args.out / ".expected"  # expected values, reused while the grader is unchanged
    summary = batch.grade_batch(args.submitted, args.out, options, jobs=args.jobs,
                                force=args.force,
                                prepare=lambda exercises: _prepare(exercises, store),
                                assignment=args.assignment, policy=policy, overrides=found,
                                shard=part)
    print(summary.line(args.out), file=sys.stderr)
    return 130 if summary.interrupted else 0


def _gradescope(args: argparse.Namespace) -> int:
    try:
        count = gradescope.build(args.assignment, args.out)
    except gradescope.BundleError as error:
        raise UsageError(str(error)) from None
    print(f"wrote {args.out} ({count} files): upload it as the autograder of "
          f"{args.assignment} on Gradescope")
    return 0


def _export(args: argparse.Namespace) -> int:
    titles = {}
    for given in args.title:
        assignment, sep, title = given.partition("=")
        if not sep or not title:
            raise UsageError(f"--title {given}: write ASSIGNMENT=COLUMN")
        titles[assignment] = title
    out = args.out or args.folder / ("export-canvas.csv" if args.format == "canvas"
                                     else "export.csv")
    # Every student's grades, never among the submissions the gradebook was graded from.
    inside = shard.holding_class(out, shard.class_folders(args.folder))
    if inside:
        raise UsageError(shard.inside_class("--out" if args.out else "the export", out, inside))
    try:
        text, messages = export.export(args.folder, args.format, args.roster, args.missing,
                                       titles)
    except export.ExportError as error:
        raise UsageError(str(error)) from None
    for message in messages:  # `warning: ...` or `note: ...`
        print(escape.terminal(message), file=sys.stderr)
    report.write_atomic(out, text)
    print(f"wrote {out}")
    return 0


def _terminate(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def _merge(args: argparse.Namespace) -> int:
    # The instructor's files in --out, which grade-batch into that folder would apply: the
    # shards must have applied them too (docs/class.md, What merge checks).
    given = {name: _instructor_file(None, args.out, name)
             for name in ("deadlines.toml", "overrides.csv")}
    try:
        policy = deadlines.load(given["deadlines.toml"])
        found, _ = overrides.load(given["overrides.csv"])
    except (deadlines.DeadlineError, overrides.OverrideError) as error:
        raise UsageError(str(error)) from None
    held = tuple(name for name, path in given.items() if path is not None)
    try:
        students = shard.merge(args.shards, args.out, held,
                               shard.policy_digest(policy or deadlines.Policy(), found or {}))
    except shard.ShardError as error:
        raise UsageError(str(error)) from None
    print(f"merged {batch.counted(len(args.shards), 'shard')} "
          f"({batch.counted(students, 'student')}) into {args.out}",
          file=sys.stderr)
    return 0


_verbose_handler: logging.Handler | None = None


def _log_to_stderr(verbose: bool) -> None:
    """--verbose: the grader's log lines (autograder.runner, autograder.cli) on stderr; none
    without it, however often `main` runs in one process."""
    global _verbose_handler
    logger = logging.getLogger("autograder")
    if _verbose_handler is not None:
        logger.removeHandler(_verbose_handler)
        _verbose_handler = None
        logger.setLevel(logging.NOTSET)
    if verbose:
        _verbose_handler = logging.StreamHandler(sys.stderr)
        _verbose_handler.setFormatter(logging.Formatter("%(name)s: %(levelname)s: %(message)s"))
        logger.addHandler(_verbose_handler)
        logger.setLevel(logging.DEBUG)


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    _log_to_stderr(getattr(args, "verbose", False))
    signal.signal(signal.SIGTERM, _terminate)
    try:
        if args.command == "grade":
            return _grade(args)
        if args.command == "gradescope":
            return _gradescope(args)
        if args.command == "export":
            return _export(args)
        if args.command == "merge":
            return _merge(args)
        return _grade_batch(args)
    except (UsageError, batch.BatchError) as error:  # may name what a submission holds
        print(f"python -m autograder {args.command}: error: {escape.terminal(error)}",
              file=sys.stderr)
        return 2
    except isolation.SandboxUnavailable as error:
        print(f"python -m autograder {args.command}: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        processes.stop_all()
        print(f"python -m autograder {args.command}: interrupted", file=sys.stderr)
        return 130
