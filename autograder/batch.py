"""Grade a whole class: SUBMITTED/<student>/<assignment>/<notebook>.ipynb.

`discovery` decides what to grade (one file per student and exercise) and lists the rest;
`classbook` turns the results into the gradebook's rows (deadlines and overrides applied).

Output: DIR/grades.csv (the gradebook), DIR/not-graded.csv (what was found and not graded),
DIR/flags.csv (what the grader noticed as tampering) and, per student,
DIR/students/<student>/<assignment>/results.json and DIR/students/<student>/report.md; nothing
a student names can land beside the gradebook. Each graded notebook's result is saved at once
under DIR/students/<student>/.results/ (in a file named by a hash, so no notebook name is too
long for it) together with the hash of the notebook's bytes and a fingerprint of the grader
(rubric, suites, probes, reference solutions, limits). A rerun reuses every saved result whose
notebook and grader are unchanged, so an interrupted batch loses nothing it already graded.
Notebooks are graded by a pool of threads, each of which drives one sandbox process at a time,
the exercises whose hidden tests cost most first (`grading.longest_first`).
A failure while grading or writing one student's results is that student's error, with a
reason in the gradebook; the batch goes on and grades.csv is always written.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TextIO

from . import classbook, deadlines, discovery, escape, grading, processes, report, runner, suite
from . import shard as shard_module
from .filecache import PerChange
from .notebook import MAX_NOTEBOOK_BYTES
from .results import NotebookResult, not_graded
from .rubric import Exercise, exercise_for
from .sandbox.probes import module_of

PACKAGE = Path(__file__).resolve().parent
DATA = PACKAGE.parent / "data"
SUITES = PACKAGE / "suites"
PROBE_MODULES = PACKAGE / "sandbox" / "probes"


def core_files() -> list[Path]:
    """Every file of the package that is not one exercise's own (its suites, its probes): a
    change to any of them may change any verdict, so it regrades every notebook. Found by
    listing the package, never by a hand-kept list."""
    return [Path(path) for path in _core_files()]


def _core_files() -> list[str]:
    found = []
    suites, probes = str(SUITES), str(PROBE_MODULES)
    for folder, folders, files in os.walk(PACKAGE):
        folders[:] = sorted(name for name in folders if name != "__pycache__")
        for name in files:
            if name.endswith((".pyc", ".pyo")):
                continue
            if folder == suites and name != "__init__.py":
                continue
            if folder == probes and name != "__init__.py" \
                    and not name.startswith("_"):  # shared by several suites' probes: core
                continue
            path = os.path.join(folder, name)
            if os.path.isfile(path):
                found.append(path)
    return found


def _files_in(folder: Path) -> list[str]:
    return [path for root, _, files in os.walk(folder) for name in files
            if os.path.isfile(path := os.path.join(root, name))]


Submission = discovery.Submission


class BatchError(Exception):
    """The class folder cannot be graded; the message is one sentence for a person."""


def student_folder(out: Path, found: discovery.Discovery, student: str) -> Path:
    """Where one student's results.json and report.md go: DIR/students/<student>/, or the
    folder `discovery.output_folders` gives a name too long or too like another's."""
    return Path(out) / "students" / found.folder(student)


def counted(number: int, noun: str) -> str:
    """'1 notebook', '3 notebooks': a count and its noun, singular for one."""
    return f"{number:,} {noun}" + ("" if number == 1 else "s")


@dataclass
class Summary:
    graded: int = 0
    unchanged: int = 0
    unreadable: int = 0
    seconds: float = 0.0
    interrupted: bool = False
    not_graded: list[str] = field(default_factory=list)  # "file: reason", for the summary
    failed: int = 0  # notebooks whose grading or writing failed in the grader itself
    stale: list[str] = field(default_factory=list)  # folders under DIR/students/ of no student
    flagged: list[tuple[str, str, str, str]] = field(default_factory=list)
    alike: list[tuple[str, ...]] = field(default_factory=list)  # names that read alike
    graded_again: list[str] = field(default_factory=list)  # notebooks graded again alone

    def line(self, out: Path) -> str:
        rate = self.graded / self.seconds if self.seconds > 0 else 0.0
        text = (f"graded {counted(self.graded, 'notebook')}, skipped {self.unchanged} unchanged, "
                f"{self.unreadable} could not be graded, in {self.seconds:.1f} s "
                f"({rate:.1f} notebooks/s)")
        if self.interrupted:
            return (f"interrupted: {text}; every notebook graded so far is saved, run the "
                    "same command again to grade the rest")
        text = f"{text}; wrote {out / 'grades.csv'}"
        if self.not_graded:
            shown = "".join(f"\n  {escape.one_line(entry, 160)}"
                            for entry in self.not_graded[:MAX_LISTED])
            more = len(self.not_graded) - MAX_LISTED
            text += (f"\nnot graded or flagged ({len(self.not_graded)}, all in "
                     f"{out / NOT_GRADED}):{shown}" + (f"\n  ... and {more} more" if more > 0
                                                       else ""))
        if self.graded_again:
            shown = ", ".join(escape.one_line(key, 160) for key in self.graded_again[:MAX_LISTED])
            text += (f"\ngraded {counted(len(self.graded_again), 'notebook')} again alone, "
                     "after the rest, "
                     "because processes could not be started for them while other "
                     f"notebooks ran (see the note column of grades.csv): {shown}"
                     + (", ..." if len(self.graded_again) > MAX_LISTED else ""))
        if self.failed:
            text += (f"\nthe grader failed on {counted(self.failed, 'notebook')} (see the note "
                     "column of grades.csv)")
        if self.stale:
            shown = ", ".join(escape.one_line(name, 80) for name in self.stale[:MAX_LISTED])
            text += (f"\n{out / 'students'} also holds folders of no student of this run "
                     f"({shown}{', ...' if len(self.stale) > MAX_LISTED else ''}): a student "
                     "who left, or one whose folder got a new name because another name now "
                     "reads alike; their files there are older, remove them when done")
        if self.flagged:
            by_student: dict[str, list[str]] = {}
            for who, _, notebook, flag in self.flagged:
                by_student.setdefault(who, []).append(f"{notebook}: {flag}" if notebook else flag)
            text += (f"\ntampering noticed for {counted(len(by_student), 'student')} (all of it in "
                     f"{out / 'flags.csv'}):")
            listed = sorted(by_student.items())
            for student, mine in listed[:MAX_LISTED]:
                text += f"\n  {escape.one_line(student, 80)}: {escape.one_line(mine[0], 160)}"
                if len(mine) > 1:
                    text += f" (and {len(mine) - 1} more)"
            if len(listed) > MAX_LISTED:
                text += f"\n  ... and {counted(len(listed) - MAX_LISTED, 'more student')}"
        if self.alike:
            text += (f"\nwarning: {sum(map(len, self.alike))} students' folder names read like "
                     "another's (each graded as a student of their own, and flagged in "
                     f"{out / 'flags.csv'}); check that each row is the right student's:")
            for names in self.alike[:MAX_LISTED]:
                text += "\n  " + ", ".join(escape.unmistakable(name) for name in names)
            if len(self.alike) > MAX_LISTED:
                text += f"\n  ... and {len(self.alike) - MAX_LISTED:,} more"
        return text


MAX_LISTED = 20
NOT_GRADED = "not-graded.csv"


def discover(submitted: Path, assignment: str | None = None,
             walked: Callable[[list[tuple[str, Path]]], object] | None = None
             ) -> discovery.Discovery:
    submitted = Path(submitted)
    if not submitted.exists():
        raise BatchError(f"{submitted} does not exist")
    if not submitted.is_dir():
        raise BatchError(f"{submitted} is not a folder (expected {discovery.LAYOUT})")
    try:
        return discovery.discover(submitted, assignment, walked)
    except discovery.LayoutError as error:
        raise BatchError(str(error)) from None


def in_shard(found: discovery.Discovery, shard: shard_module.Shard) -> discovery.Discovery:
    """The part of a class that one shard grades: whole students, never split. The
    assignments graded stay those of the whole class, so every shard has the same columns."""
    if shard.count == 1:
        return found
    return replace(found, students=[s for s in found.students if shard.holds(s)],
                   submissions=[s for s in found.submissions if shard.holds(s.student)],
                   skipped=[s for s in found.skipped if shard.holds(s.student)],
                   flagged=[s for s in found.flagged if shard.holds(s.student)],
                   chosen={s: why for s, why in found.chosen.items() if shard.holds(s.student)},
                   alike={s: others for s, others in found.alike.items() if shard.holds(s)})


def progress_note(text: str, width: int = 70) -> str:
    """A problem shortened for the progress line at a word boundary; the report has it all."""
    text = " ".join(text.split())
    if len(text) <= width:
        return text
    cut = text[:width + 1].rsplit(" ", 1)[0].rstrip(",;:")
    return f"{cut} ... (see the report)"


def fingerprint(options: grading.Options, exercise: Exercise | None = None) -> str:
    """A hash of everything that decides a score of `exercise`'s notebooks: every file of the
    grading package (`core_files`), the course data, the limits, and the exercise's suites,
    probes, reference solution and student copy (which decides the public cases). A change to
    one exercise regrades only that exercise's notebooks."""
    limits = options.limits(exercise) if exercise is not None else None
    digest = hashlib.sha256(files_digest(exercise).encode())
    digest.update(repr((options.time_limit, options.memory_limit_mb, options.processes,
                        options.isolation.kind, options.show_expected, limits)).encode())
    return digest.hexdigest()


def files_digest(exercise: Exercise | None = None) -> str:
    """The part of `fingerprint` that does not depend on the grading options: the files. It
    also names the expected outcomes stored for an exercise (autograder/expected.py)."""
    files = _core_files() + _files_in(DATA)
    if exercise is not None:
        files.append(str(grading.SOLUTIONS / exercise.path))
        files.append(str(suite.RELEASE / exercise.path))
        for item in exercise.items:
            files.append(str(PACKAGE / "suites" / f"{item.suite}.py"))
            try:
                probes = {case.probe for case in suite.cases_for(item)}
            except Exception:  # a missing or broken suite: its file's hash says enough
                probes = set()
            for name in probes:  # "suite.probe" lives in probes/suite.py (probes.load)
                module = module_of(name)
                source = PROBE_MODULES / f"{module}.py" if module is not None else None
                if source is not None and source.is_file():
                    files.append(str(source))
    digest = hashlib.sha256()
    # Named relative to the repository, so that machines grading shards of one class
    # from checkouts in different places agree; in the order of their path's parts.
    repository = str(PACKAGE.parent) + os.sep
    for path in sorted(set(files), key=lambda path: path.split(os.sep)):
        shown = path[len(repository):] if path.startswith(repository) else path
        digest.update(shown.encode() + b"\0" + _content_hash(Path(path)) + b"\0")
    return digest.hexdigest()


_hashed = PerChange(lambda path: hashlib.sha256(path.read_bytes()).digest())


def _content_hash(path: Path) -> bytes:
    """sha256 of a file's bytes (b"<missing>" when it cannot be read), once per change of the
    file: a batch asks for the same files' fingerprints many times."""
    try:
        return _hashed(path)
    except OSError:
        return b"<missing>"


def file_hash(path: Path) -> str:
    """The SHA-256 of a notebook file, read in chunks and only when it is a regular file of
    at most the size the grader reads; anything else is identified by what lstat says."""
    try:
        info = os.lstat(path)
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_NOTEBOOK_BYTES:
            return f"not read: mode {info.st_mode:o}, {info.st_size} bytes, {info.st_mtime_ns}"
        digest = hashlib.sha256()
        descriptor = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
        try:
            read = 0
            while read <= MAX_NOTEBOOK_BYTES:
                chunk = os.read(descriptor, 1 << 20)
                if not chunk:
                    break
                digest.update(chunk)
                read += len(chunk)
        finally:
            os.close(descriptor)
        return digest.hexdigest()
    except OSError:
        return ""


def _load(saved: Path, sha: str, grader: str) -> NotebookResult | None:
    """A saved result, or None when it is missing, stale, or damaged in any way."""
    try:
        data = json.loads(saved.read_text(encoding="utf-8"))
        if data.get("sha256") == sha and data.get("fingerprint") == grader:
            result = NotebookResult.from_dict(data["result"])
            json.dumps(report.results_json([result]))  # it must be writable, too
            # A time-out may be the machine's doing, not the notebook's: never final.
            return None if result.timed_out else result
    except Exception:  # a damaged file is a cache miss, never the end of the batch
        pass
    return None


def _keep_what_reports_show(result: NotebookResult) -> None:
    """Of what the notebook printed, keep only what a report shows: no report shows stdout,
    and report.md shows the first OUTPUT_SHOWN characters of stderr (one more says it was
    shortened). A result is held until the whole class is graded, and saved: up to 64 KiB of
    each stream per notebook would otherwise be kept for every student who prints."""
    result.stdout = ""
    result.stderr = result.stderr[:report.OUTPUT_SHOWN + 1]


def _save(submission: Submission, out: Path, sha: str, grader: str,
          result: NotebookResult) -> None:
    saved = {"sha256": sha, "fingerprint": grader, "result": result.to_dict()}
    report.write_atomic(submission.saved_result(out), json.dumps(escape.plain_json(saved)))


def _student_named(found: discovery.Discovery, what: str,
                   progress: TextIO) -> Callable[[str], str | None]:
    """The student a name in an instructor's file (`what`: "an override") means: the folder
    name itself, or the name as grades.csv shows it (`'-ada` for -ada). For any other name,
    a warning (the row would otherwise change nothing without a word) and None; so too for
    a name that is one student's folder and how grades.csv shows another's (a folder named
    `'-ada` beside -ada's), which must not go to either by a guess.

    A name that is none of those exactly but one of them in another Unicode normal form is
    that student's, with a line that shows both forms' code points: a zip made on a Mac holds
    `José` with its accent as a character of its own (NFD), which the instructor types as one
    letter (NFC), and the two look the same. Such a name that fits several students goes to
    none, with a warning. A name that differs in case, in a letter's form or in a letter's
    script (`Ada` for ada, fullwidth `ａｄａ`, `аda` with a Cyrillic `а`) is not applied, for
    both may be students of the class: the warning names the folder it reads like."""
    names = discovery.StudentNames((form, student) for student in found.students
                                   for form in (student, escape.csv_key(student)))

    def named(name: str) -> str | None:
        match = names.match(name)
        if len(match.exact) == 1:
            return match.exact[0]
        if match.exact:  # the folder `name`, and the folder grades.csv shows as `name`
            shown = next(student for student in match.exact if student != name)
            print(f"warning: {what} names {escape.unmistakable(name)}, which is a student's "
                  f"folder name and also how grades.csv shows the folder "
                  f"{escape.unmistakable(shown)}; ignored: write "
                  f"{escape.unmistakable(escape.csv_key(name))} for the first or "
                  f"{escape.unmistakable(shown)} for the second", file=progress)
            return None
        if len(match.other_form) == 1:
            print(discovery.other_form_note(what, name, match.other_form[0]), file=progress)
            return match.other_form[0]
        if match.other_form:
            print(discovery.other_forms_warning(what, name, match.other_form, "ignored"),
                  file=progress)
            return None
        print(f"warning: {what} names {escape.unmistakable(name)}, who is not a student of "
              f"this class (their folder name, as in grades.csv)"
              f"{discovery.reads_like_hint(match.alike)}; ignored", file=progress)
        return None
    return named


def match_overrides(found: discovery.Discovery, overrides: dict,
                    progress: TextIO) -> dict:
    """The overrides that name a student and a notebook of this class, keyed by the student's
    folder name; a warning for each of the others."""
    named = _student_named(found, "an override", progress)
    graded = {exercise.notebook for exercise in found.exercises}
    matched = {}
    for (student, notebook), override in overrides.items():
        name = named(student)
        if name is not None and notebook not in graded:
            print(f"warning: an override for {escape.unmistakable(name)} names {notebook}, "
                  "which this run does not grade; ignored", file=progress)
        elif name is not None:
            if (name, notebook) in matched:  # `José` in two normal forms, or `'-ada` and -ada
                print(f"warning: a second override for {escape.unmistakable(name)} "
                      f"{notebook}, written another way; the last one counts", file=progress)
            matched[(name, notebook)] = replace(override, student=name)
    return matched


def match_extensions(found: discovery.Discovery, policy: deadlines.Policy,
                     progress: TextIO) -> deadlines.Policy:
    """`policy` with each extension keyed by the student's folder name, and a warning for one
    that names no student of the class (its student would be judged by the usual due date)."""
    named = _student_named(found, "an extension", progress)
    extensions = {}
    for student, dates in policy.extensions.items():
        name = named(student)
        if name is not None:
            if name in extensions:  # two tables for one student, written two ways
                print(f"warning: a second extension for {escape.unmistakable(name)}, written "
                      "another way; the last one counts", file=progress)
            extensions[name] = dates
    return replace(policy, extensions=extensions)


def grade_batch(submitted: Path, out: Path, options: grading.Options, jobs: int = 1,
                force: bool = False, progress: TextIO = sys.stderr,
                prepare: Callable[[tuple], object] = grading.prepare,
                assignment: str | None = None, policy: deadlines.Policy | None = None,
                overrides: dict | None = None,
                shard: shard_module.Shard = shard_module.ALL) -> Summary:
    started = time.monotonic()
    options = replace(options, jobs=max(1, jobs))  # the sandboxes' shared process limit
    # Anywhere in the class, the output would be read as submissions, and an empty folder
    # there may be a student's who has not submitted yet: it is refused, however it looks.
    if shard_module.holding_class(out, [shard_module.class_folder(submitted)]):
        raise BatchError(shard_module.inside_class("--out", out, submitted))
    out = Path(out)
    # Notebooks graded for the first time (or all, with force): their first workers start as
    # soon as they are known, while this process compares the students' names, works out
    # fingerprints and reads expected values. With no saved result in `out` at all, that is
    # every notebook, known once the class's folders are walked; otherwise those whose saved
    # result is missing, known once the output folders are named.
    every = force or not (out / "students").exists()
    with grading.Ahead() as ahead:
        def walked(notebooks: list[tuple[str, Path]]) -> None:
            if every:
                ahead.update(grading.start_ahead(
                    (path for student, path in notebooks if shard.holds(student)), options, jobs))

        whole = discover(submitted, assignment, walked)
        overrides = match_overrides(whole, overrides or {}, progress)
        policy = match_extensions(whole, policy, progress) if policy is not None else None
        found = in_shard(whole, shard)
        if out.exists() and not out.is_dir():
            raise BatchError(f"{out} exists and is not a folder")
        if not every:
            ahead.update(grading.start_ahead((s.path for s in found.submissions
                                              if s.exercise is not None
                                              and not s.saved_result(out).exists()),
                                             options, jobs))
        return _grade_batch(out, options, jobs, force, progress, prepare, found, shard, policy,
                            overrides, started, ahead, shard_module.class_digest(whole.students),
                            shard_module.class_folder(submitted))


def _grade_batch(out: Path, options: grading.Options, jobs: int, force: bool, progress: TextIO,
                 prepare: Callable[[tuple], object], found: discovery.Discovery,
                 shard: shard_module.Shard, policy: deadlines.Policy | None,
                 overrides: dict | None, started: float,
                 ahead: dict[Path, runner.Started], whole: dict[str, object],
                 class_folder: str) -> Summary:
    submissions = found.submissions
    graders: dict[Exercise | None, str] = {}
    results: dict[Submission, NotebookResult] = {}
    hashes: dict[Submission, str] = {}
    submission_grader: dict[Submission, str] = {}
    todo = []
    summary = Summary()
    pool = ThreadPoolExecutor(max_workers=max(1, jobs), thread_name_prefix="grade")
    prepared = threading.Event()
    futures: dict[Future[NotebookResult], Submission] = {}
    try:
        # The notebooks whose workers started ahead are graded whatever their fingerprint
        # says (none has a saved result, or all are forced): they go to their sandboxes now,
        # while this thread works out fingerprints and expected values, and are scored once
        # those are ready, exactly as if they had waited.
        futures.update({pool.submit(grading.grade_safely, s.path, options, s.key, s.within,
                                    ahead.get(s.path), prepared): s
                        for s in submissions if s.path in ahead})
        try:
            for submission in submissions:
                hashes[submission] = file_hash(submission.path)
                exercise = submission.exercise
                if exercise not in graders:
                    graders[exercise] = fingerprint(options, exercise)
                submission_grader[submission] = graders[exercise]
                saved = None if force or submission.path in ahead else _load(
                    submission.saved_result(out), hashes[submission], graders[exercise])
                if saved is None:
                    todo.append(submission)
                else:
                    results[submission] = saved
                    summary.unchanged += 1
                    summary.unreadable += not saved.readable
            if todo:
                prepare(tuple(dict.fromkeys(s.exercise for s in todo)))
                todo = [todo[index]
                        for index in grading.longest_first([s.exercise for s in todo])]
        finally:
            prepared.set()
        width = len(str(len(todo)))
        futures.update({pool.submit(grading.grade_safely, s.path, options, s.key, s.within): s
                        for s in todo if s.path not in ahead})
        def keep(submission: Submission, result: NotebookResult, counter: str) -> None:
            _keep_what_reports_show(result)
            results[submission] = result
            summary.unreadable += not result.readable
            if not result.grader_failed and not result.grade_alone:
                try:
                    _save(submission, out, hashes[submission], submission_grader[submission],
                          result)
                except Exception:  # not saved: the next run grades it again
                    pass
            note = f"  {progress_note(escape.terminal(result.problems[0]))}" \
                if result.problems else ""
            print(f"[{counter}] {escape.terminal(submission.key)}  "
                  f"{report.points(result.score)}/{report.points(result.max_score)}  "
                  f"{result.execution_time:.2f} s{note}", file=progress, flush=True)

        for done, future in enumerate(as_completed(futures), start=1):
            submission = futures[future]
            try:
                result = future.result()
            except Exception as error:
                result = _grader_failed(submission, "grading", error)
            summary.graded += 1
            keep(submission, result, f"{done:>{width}}/{len(todo)}")
        # Those for which the grader could not start a process (its user had none left, say
        # to a notebook graded beside them), or that a notebook graded beside them may have
        # crowded out of their processes: again, one at a time, with nothing else running.
        again = [s for s in submissions if s in results
                 and (results[s].out_of_processes or results[s].grade_alone)]
        for done, submission in enumerate(again, start=1):
            first = results[submission]
            summary.unreadable -= not first.readable
            summary.graded_again.append(submission.key)
            keep(submission, grading.graded_alone(first, submission.path, options,
                                                  submission.key, submission.within),
                 f"again {done}/{len(again)}")
    except KeyboardInterrupt:
        processes.stop_all()
        pool.shutdown(wait=True, cancel_futures=True)
        summary.interrupted = True
        summary.seconds = time.monotonic() - started
        return summary
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
    policy, overrides = policy or deadlines.Policy(), overrides or {}
    write_outputs(out, found, results, policy, overrides, summary)
    shard_module.write_manifest(out, shard, {e.notebook: graders.get(e) or fingerprint(options, e)
                                             for e in found.exercises}, found.students,
                                shard_module.policy_digest(policy, overrides), whole,
                                [class_folder])
    summary.not_graded = [f"{s.file or s.student}: {s.reason}"
                          for s in found.skipped + found.flagged + _unstarted(results)]
    summary.seconds = time.monotonic() - started
    return summary


def _grader_failed(submission: Submission, doing: str,
                   error: BaseException) -> NotebookResult:
    """A failure of the grader itself on one notebook, as that notebook's result (never saved,
    so the next run tries again)."""
    result = not_graded(
        submission.key, submission.exercise or exercise_for(submission.path.name),
        f"the grader failed while {doing} this notebook ({type(error).__name__}); please tell "
        "your instructor", submission.path)
    result.grader_failed = True
    return result


def _unstarted(results: dict[Submission, NotebookResult]) -> list[discovery.Skipped]:
    """The notebooks not graded because the grader could not start a process for them, even
    alone: for not-graded.csv, beside what discovery did not grade."""
    return [discovery.Skipped(submission.student, submission.assignment, result.notebook,
                              submission.key, result.problems[0] if result.problems else "")
            for submission, result in results.items() if result.out_of_processes]


def write_outputs(out: Path, found: discovery.Discovery,
                  results: dict[discovery.Submission, NotebookResult],
                  policy: deadlines.Policy, overrides: dict,
                  summary: Summary | None = None) -> None:
    """Per student a report and one results.json per assignment, then grades.csv (a row per
    student and expected notebook), not-graded.csv and flags.csv. A student whose files cannot
    be written keeps rows with the reason; the gradebook is always written."""
    summary = summary if summary is not None else Summary()
    for submission in found.submissions:
        if submission not in results:  # never graded: the grader itself failed before
            results[submission] = _grader_failed(submission, "grading", RuntimeError())
    rows = classbook.build(found, results, policy, overrides)
    by_student: dict[str, list[classbook.Row]] = {}
    for row in rows:
        by_student.setdefault(row.student, []).append(row)
    for student, mine in by_student.items():
        try:
            folder = student_folder(out, found, student)
            for assignment in found.assignments:
                report.write_results(folder / assignment / "results.json",
                                     [r.result for r in mine
                                      if r.exercise.assignment == assignment])
            text = report.report_markdown([r.result for r in mine], student)
            report.write_atomic(folder / "report.md", text + classbook.report_notes(mine))
        except Exception as error:
            for row in mine:
                row.notes.append(f"the grader could not write this student's results "
                                 f"({type(error).__name__}); please report it")
                summary.failed += 1
    current = {found.folder(student) for student in found.students}
    try:
        summary.stale = sorted(entry.name for entry in (Path(out) / "students").iterdir()
                               if entry.is_dir() and entry.name not in current)
    except OSError:
        summary.stale = []
    flags = []
    for row in rows:
        summary.failed += row.result.grader_failed
        flags += [(row.student, row.exercise.assignment, row.exercise.notebook, flag)
                  for flag in row.result.flags + ([row.unreadable] if row.unreadable else [])]
    flags += [(entry.student, entry.assignment, entry.notebook, f"refused: {entry.reason}")
              for entry in found.skipped if entry.tampering]
    summary.flagged = sorted(flags)
    # Names that read alike are no tampering (a Mac's zip and a typed name do it): they have
    # a warning of their own in the summary, and a row each in flags.csv.
    flags += [(student, "", "", discovery.alike_flag(student, others))
              for student, others in found.alike.items()]
    summary.alike = sorted({tuple(sorted((student, *others)))
                            for student, others in found.alike.items()})
    report.write_atomic(out / NOT_GRADED,
                        classbook.not_graded_csv(found, _unstarted(results)))
    report.write_atomic(out / "grades.csv", report.grades_csv([row.cells() for row in rows]))
    report.write_atomic(out / "flags.csv", report.flags_csv(flags))
