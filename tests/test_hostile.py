"""Hostile submissions earn nothing they did not honestly earn, and break nothing.

The whole hostile corpus (tests/corpus/hostile/*.py, plus the damaged files built below) is
graded as ONE class with `python -m autograder grade-batch --sandbox=required --jobs 2`,
every hostile student followed by an honest one (with the last exercise that exists, whose
tests start threads) so that they run side by side. Then:

- every hostile student scores exactly its `# max-points:` (a number, or "as <corpus entry>":
  what that entry earns in the same batch): grading is deterministic, so a lower score is a
  bug too;
- every honest student gets full marks, and every notebook gets a row;
- the grader exits with status 0 (a generous backstop stops a hang, not a slow machine);
- nothing the hostile code reported as an escape ("ESCAPED: ...") or a secret it found
  (the grader's environment, its command line) reaches any file of the output folder;
- no process is left behind (the batch runs under a subreaper that adopts every orphan of
  the grader), no process anywhere carries the corpus's "hostile-orphan" name, no file named
  "hostile-canary-written" appeared outside the output folder, the class folder is unchanged,
  and nothing connected to the listeners on this machine's loopback.

Corpus entries that attack the sandbox start processes, allocate memory and write many
megabytes, all bounded (see each file's `# threat:` line).
"""

from __future__ import annotations

import copy
import csv
import hashlib
import json
import os
import socket
import subprocess
import sys
import threading
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import fixtures
import nbformat
import pytest
from grader_cli import GRADER, Grades, grade, place

from autograder.reference import REPOSITORY, SOLUTIONS, is_answer_cell, nbgrader_meta
from autograder.rubric import EXERCISES, Exercise, exercise_for
from autograder.sandbox.backstop import stat_fields

CORPUS = REPOSITORY / "tests" / "corpus"
HOSTILE = CORPUS / "hostile"
LIMITS = ["--sandbox=required", "--jobs", "2", "--time-limit", "8", "--memory-limit", "512"]
BATCH_BOUND = 900.0  # seconds: stops a hung batch; never a speed requirement (CPU limits are)
CANARY_FILE = "hostile-canary-written"
ORPHAN_NAME = "hostile-orphan"
GRADER_MARK = b"\0autograder\0"  # in the command line of `python -m autograder ...`
PORT = 47361  # network_access.py connects here
ABSTRACT_SOCKET = "\0hostile-canary-socket"
PARSE = exercise_for("01_parse_cron_field")

# Runs the grader as a child of a subreaper: every process the grader leaves behind, however
# it detached itself, is re-parented to this process and found here after the grader exits.
REAPER = r"""
import ctypes, json, os, signal, subprocess, sys, time
ctypes.CDLL(None).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
report, command = sys.argv[1], sys.argv[2:]
started = time.monotonic()
with open(report + ".stdout", "wb") as out, open(report + ".stderr", "wb") as err:
    grader = subprocess.Popen(command, stdout=out, stderr=err)
    try:
        code = grader.wait(timeout=float(os.environ["HOSTILE_BOUND"]))
    except subprocess.TimeoutExpired:
        grader.kill()
        code = "timeout"
elapsed = time.monotonic() - started
time.sleep(1.0)
left = []
for entry in os.listdir("/proc"):
    if not entry.isdigit():
        continue
    try:
        stat = open(f"/proc/{entry}/stat").read()
        uid = os.stat(f"/proc/{entry}").st_uid
        cmdline = open(f"/proc/{entry}/cmdline", "rb").read().replace(b"\0", b" ").decode()
    except OSError:
        continue
    name, rest = stat[stat.index("(") + 1:stat.rindex(")")], stat[stat.rindex(")") + 2:].split()
    if int(rest[1]) == os.getpid() and rest[0] != "Z":
        left.append({"pid": int(entry), "uid": uid, "name": name, "cmdline": cmdline[:200]})
        try:
            os.kill(int(entry), signal.SIGKILL)
        except OSError:
            pass
while True:
    try:
        if os.waitpid(-1, os.WNOHANG) == (0, 0):
            break
    except ChildProcessError:
        break
json.dump({"code": code, "elapsed": elapsed, "left": left}, open(report, "w"))
"""


@dataclass
class Hostile:
    """One hostile student: the files it submits and the most it may earn."""

    name: str
    threat: str
    exercise: Exercise
    max_points: float | None = None  # None: exactly what `yardstick` earns
    twin: str | None = None  # what the yardstick is, for messages and as a key
    yardstick: object = None  # the notebook whose score bounds this one's (with `twin`)
    files: dict[str, object] = field(default_factory=dict)  # file name -> notebook/bytes/Path
    needs_root: str | None = None  # why the grader holds this one only when it runs as root


# `max-points: as its answers alone`: the entry's answer cells without the cells it adds, which
# is what those cells (rebinding what the probes use) must not raise the score above.
ANSWERS_ALONE = "its answers alone"


def from_corpus(path: Path) -> Hostile:
    entry = fixtures.read_corpus_entry(path)
    limit = entry.header["max-points"]
    hostile = Hostile(path.stem, entry.header["threat"], entry.exercise,
                      needs_root=entry.header.get("needs-root"))
    if limit.startswith("as "):
        source = limit[3:].strip()
        if source == ANSWERS_ALONE:
            hostile.twin = f"{path.stem} without its added cells"
            yardstick = fixtures.CorpusEntry(entry.path, entry.header, entry.answers)
        else:
            hostile.twin = source
            yardstick = fixtures.read_corpus_entry(CORPUS / f"{source}.py")
        hostile.yardstick = fixtures.corpus_submission(yardstick)
    else:
        hostile.max_points = float(limit)
    hostile.files[f"{entry.exercise.notebook}.ipynb"] = fixtures.corpus_submission(entry)
    return hostile


def _cells(notebook, keep=lambda cell: True):
    notebook = copy.deepcopy(notebook)
    notebook.cells = [cell for cell in notebook.cells if keep(cell)]
    return notebook


def _as_json(notebook) -> dict:
    return json.loads(nbformat.writes(notebook))


def built_here(exercise: Exercise) -> list[Hostile]:
    """Hostile files that are not cell source: damaged documents, tampered metadata."""
    honest, stub = fixtures.honest_submission(exercise), fixtures.stub_submission(exercise)
    name = f"{exercise.notebook}.ipynb"
    made = []

    def add(label: str, threat: str, limit: float, files: dict) -> None:
        made.append(Hostile(label, threat, exercise, limit, files=files))

    add("not_a_notebook", "a binary file named like the notebook", 0,
        {name: bytes(range(256)) * 64})
    add("json_not_a_notebook", "JSON that is not a notebook (a list)", 0, {name: "[1, 2, 3]\n"})
    add("cells_not_a_list", "a notebook document whose cells are a string", 0,
        {name: json.dumps({"cells": "print(1)", "metadata": {}, "nbformat": 4,
                           "nbformat_minor": 5})})
    add("deeply_nested_json", "JSON nested 100000 levels deep", 0,
        {name: "[" * 100000 + "]" * 100000})
    # A document nbformat rejects is not read at all, honest answers or not: 0 and the reason.
    add("nbformat_99", "an honest notebook that claims nbformat version 99", 0,
        {name: json.dumps({**_as_json(honest), "nbformat": 99})})
    malformed = _as_json(honest)
    malformed["cells"] += [42, "a string", None, {"cell_type": "code"},
                           {"cell_type": "code", "source": ["x = 1\n", 5], "metadata": None},
                           {"cell_type": "code", "source": "y = 2", "metadata": {"nbgrader": [1]}},
                           {"cell_type": "code", "source": {"a": 1}, "metadata": {}}]
    add("malformed_cells", "an honest notebook with cells of every wrong shape", 0,
        {name: json.dumps(malformed)})
    add("deleted_answer_cell", "the honest answer cell deleted", 0,
        {name: _cells(honest, lambda cell: not is_answer_cell(cell))})

    duplicated = copy.deepcopy(stub)
    for index, cell in enumerate(duplicated.cells):
        if is_answer_cell(cell):
            twin = copy.deepcopy(next(c for c in honest.cells
                                      if nbgrader_meta(c).get("grade_id")
                                      == nbgrader_meta(cell)["grade_id"]))
            twin["id"] = "duplicated-answer"
            duplicated.cells.insert(index + 1, twin)
            break
    add("duplicated_answer_cell", "a stub answer cell followed by an honest copy of it", 0,
        {name: duplicated})

    retyped = copy.deepcopy(honest)
    for index, cell in enumerate(retyped.cells):
        if is_answer_cell(cell):
            retyped.cells[index] = nbformat.v4.new_markdown_cell(cell.source,
                                                                metadata=cell.metadata)
    add("retyped_answer_cell", "the honest answer cells turned into markdown cells", 0,
        {name: retyped})

    def inflate(notebook):
        notebook = copy.deepcopy(notebook)
        for cell in notebook.cells:
            meta = nbgrader_meta(cell)
            if meta:
                meta["points"] = 1000
                meta["grade"] = True
        bonus = nbformat.v4.new_code_cell("print('bonus: 1000 / 1000 points')")
        bonus.metadata["nbgrader"] = {"grade": True, "grade_id": "test_bonus", "points": 1000,
                                      "solution": False, "locked": True, "schema_version": 3}
        notebook.cells.append(bonus)
        return notebook

    add("inflated_points", "an honest notebook that gives its cells 1000 points each",
        exercise.max_score, {name: inflate(honest)})
    add("inflated_points_stub", "an untouched notebook that gives its cells 1000 points", 0,
        {name: inflate(stub)})

    replaced = copy.deepcopy(stub)
    for cell in replaced.cells:
        if nbgrader_meta(cell).get("grade"):
            cell.source = ("def grade_cell(*args):\n    return 25\n"
                           "print('parse_cron_field: 25 / 25 points')\n25")
    add("replaced_grade_cell", "the grade cells' hidden tests replaced by a fake report", 0,
        {name: replaced})
    unknown = _cells(stub)
    for cell in unknown.cells:
        cell.metadata.pop("nbgrader", None)
    add("unknown_exercise", "a notebook that belongs to no exercise", 0,
        {"99_bonus_round.ipynb": unknown})
    add("copy_of_honest", "the honest notebook submitted twice (as a Jupyter '-Copy1' too)",
        exercise.max_score,
        {name: honest, f"{exercise.notebook}-Copy1.ipynb": honest})
    add("symlink_to_solution", "the submission is a symbolic link to the instructor's solution",
        0, {name: SOLUTIONS / exercise.path})

    def answers(source: str):
        return fixtures.build_submission(
            exercise, {grade_id: source for grade_id in fixtures.reference_answers(exercise)})

    add("syntax_error", "answer cells that do not parse", 0,
        {name: answers("def broken(:\n    return [")})
    add("ipython_magics", "shell escapes and magics that read the solutions", 0,
        {name: answers("!cat /work/main/solutions/*/*.ipynb\n%env\n"
                       "leak = !cat ../../solutions/*/*.ipynb\n%%bash\ncat /etc/passwd")})
    return made


def hostile_students() -> list[Hostile]:
    students = [from_corpus(path) for path in sorted(HOSTILE.glob("*.py"))]
    return _one_twin_per_yardstick(students + built_here(PARSE))


def _one_twin_per_yardstick(students: list[Hostile]) -> list[Hostile]:
    """Entries whose yardsticks are the same notebook (answers taken from one entry with
    `# answers-from:`, or the same corpus entry named twice) share the first one's twin, so the
    same notebook is graded once: the four CPU-burning `run_order` entries share a yardstick that
    uses its whole CPU limit."""
    first: dict[str, str] = {}
    for student in students:
        if student.twin:
            text = nbformat.writes(student.yardstick)  # type: ignore[arg-type]
            student.twin = first.setdefault(text, student.twin)
    return students


def _student(index: int, hostile: Hostile) -> str:
    return f"{index:02d}-{hostile.name}"


def _fingerprint(folder: Path) -> dict[str, str]:
    return {str(path.relative_to(folder)): hashlib.sha256(path.read_bytes()).hexdigest()
            if path.is_file() and not path.is_symlink() else os.readlink(path)
            if path.is_symlink() else "dir"
            for path in sorted(folder.rglob("*"))}


def _canary_files() -> set[str]:
    found = set()
    for root in ("/work", "/tmp", "/var/tmp", "/dev/shm", "/root", "/home"):
        for folder, dirs, files in os.walk(root):
            dirs[:] = [d for d in dirs if d not in (".venv", ".git", "node_modules", "proc")]
            found.update(os.path.join(folder, n) for n in files if n == CANARY_FILE)
    return found


def _ancestors(pid: str) -> list[bytes]:
    """The command lines of the processes above `pid`, nearest first (stops at one that is gone)."""
    lines, seen = [], {pid}
    while True:
        fields = stat_fields(pid)
        if fields is None or fields[1] in (b"0", b"1"):
            return lines
        pid = fields[1].decode()
        if pid in seen:
            return lines
        seen.add(pid)
        try:
            lines.append(Path(f"/proc/{pid}/cmdline").read_bytes())
        except OSError:
            return lines


def _marked_processes() -> list[str]:
    """Processes named like the corpus's orphans that no running grader holds. Other test files
    grade the same corpus at the same time (`pytest -n`); their orphans are still inside their own
    grader's process tree, and that grader stops them. An orphan of this batch, whose grader has
    exited, hangs from init or another subreaper and never under a grader."""
    marked = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                name = Path(f"/proc/{entry}/comm").read_text().strip()
                cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
            except OSError:
                continue
            if name != ORPHAN_NAME and ORPHAN_NAME.encode() not in cmdline:
                continue
            if any(GRADER_MARK in line or b"nbgrader" in line for line in _ancestors(entry)):
                continue
            marked.append(f"pid {entry} ({name})")
    return marked


class Listeners:
    """Sockets on this machine's loopback that record every connection or datagram."""

    def __init__(self) -> None:
        self.seen: list[str] = []
        self.sockets = []
        for family, kind, address in ((socket.AF_INET, socket.SOCK_STREAM, ("127.0.0.1", PORT)),
                                      (socket.AF_INET, socket.SOCK_DGRAM, ("127.0.0.1", PORT)),
                                      (socket.AF_UNIX, socket.SOCK_STREAM, ABSTRACT_SOCKET)):
            listener = socket.socket(family, kind)
            try:
                listener.bind(address)
            except OSError:
                listener.close()
                continue
            if kind == socket.SOCK_STREAM:
                listener.listen(16)
            listener.settimeout(0.2)
            self.sockets.append(listener)
            threading.Thread(target=self._watch, args=(listener, kind), daemon=True).start()

    def _watch(self, listener: socket.socket, kind: int) -> None:
        while listener.fileno() >= 0:
            try:
                if kind == socket.SOCK_STREAM:
                    connection, peer = listener.accept()
                    connection.close()
                    self.seen.append(f"connection from {peer!r}")
                else:
                    _, peer = listener.recvfrom(4096)
                    self.seen.append(f"datagram from {peer!r}")
            except TimeoutError:
                continue
            except OSError:
                return

    def close(self) -> None:
        for listener in self.sockets:
            listener.close()


@dataclass
class Batch:
    hostile: list[Hostile]
    students: dict[str, Hostile]  # student folder name -> its hostile entry
    honest: list[str]
    twins: dict[str, str]  # corpus entry -> student folder name
    out: Path
    code: object
    elapsed: float
    stderr: str
    left: list[dict]
    secret: str
    changed: dict
    new_canaries: set[str]
    marked: list[str]
    network: list[str]
    grades: Grades | None


@pytest.fixture(scope="module")
def batch(tmp_path_factory) -> Batch:
    root = tmp_path_factory.mktemp("hostile-canary-class")
    submitted, out = root / "submitted", root / "graded"
    hostile = hostile_students()
    students, honest, twins = {}, [], {}
    for index, entry in enumerate(hostile):
        student = _student(index, entry)
        students[student] = entry
        for name, made in entry.files.items():
            target = submitted / student / entry.exercise.assignment / name
            if isinstance(made, Path):
                target.parent.mkdir(parents=True, exist_ok=True)
                target.symlink_to(made)
            else:
                place(submitted, student, entry.exercise, made, name)
        # The most demanding exercise (07 starts threads) shows a neighbour starved of processes.
        neighbour, exercise = f"{index:02d}-zz-honest", EXERCISES[-1]
        place(submitted, neighbour, exercise, fixtures.honest_submission(exercise))
        honest.append(neighbour)
        if entry.twin and entry.twin not in twins:
            twins[entry.twin] = f"{index:02d}-zz-twin"
            place(submitted, twins[entry.twin], entry.exercise, entry.yardstick)
    for exercise in EXERCISES:
        place(submitted, "zz-honest-everywhere", exercise, fixtures.honest_submission(exercise))
    honest.append("zz-honest-everywhere")

    before = _fingerprint(submitted)
    canaries = _canary_files()
    secret = f"hostile-canary-environment-{uuid.uuid4().hex}"
    env = {**os.environ, "HOSTILE_CANARY_SECRET": secret, "HOSTILE_BOUND": str(BATCH_BOUND)}
    listeners = Listeners()
    report = root / "reaper.json"
    try:
        subprocess.run([sys.executable, "-c", REAPER, str(report), *GRADER, "grade-batch",
                        str(submitted), "--out", str(out), *LIMITS],
                       cwd=REPOSITORY, env=env, timeout=BATCH_BOUND + 60, check=True)
    finally:
        listeners.close()
    reaped = json.loads(report.read_text())
    stderr = Path(f"{report}.stderr").read_text(errors="replace")
    if reaped["code"] == 1 and "bubblewrap" in stderr:
        pytest.skip(f"the sandbox is not available here: {stderr.strip()[-300:]}")
    after = _fingerprint(submitted)
    changed = {k: (before.get(k), after.get(k)) for k in set(before) | set(after)
               if before.get(k) != after.get(k)}
    return Batch(
        hostile=hostile, students=students, honest=honest, twins=twins, out=out,
        code=reaped["code"], elapsed=reaped["elapsed"], stderr=stderr, left=reaped["left"],
        secret=secret, changed=changed, new_canaries=_canary_files() - canaries,
        marked=_marked_processes(), network=listeners.seen,
        grades=Grades.read(out) if (out / "grades.csv").is_file() else None)


def _grades(batch: Batch) -> Grades:
    assert batch.grades is not None, (
        f"the batch wrote no grades.csv (exit status {batch.code}); its stderr ends with:\n"
        f"{batch.stderr[-3000:]}")
    return batch.grades


def test_the_batch_ends_with_status_0(batch):
    assert batch.code == 0, f"exit status {batch.code}; stderr ends with:\n{batch.stderr[-3000:]}"


def _submitted(batch: Batch) -> set[tuple[str, str, str]]:
    """(student, notebook, student/assignment/file) of every file in the class folder."""
    return {(p.parts[-3], p.stem, "/".join(p.parts[-3:]))
            for p in (batch.out.parent / "submitted").glob("*/*/*")}


def test_every_notebook_gets_a_row_or_a_reason(batch):
    grades = _grades(batch)
    with open(batch.out / "not-graded.csv", newline="", encoding="utf-8") as handle:
        listed = {row["file"] for row in csv.DictReader(handle)}
    silent = sorted(file for student, notebook, file in _submitted(batch)
                    if (student, notebook) not in grades.rows and file not in listed)
    assert not silent, f"files neither graded nor listed in not-graded.csv: {silent}"


def test_honest_neighbours_get_full_marks(batch):
    grades = _grades(batch)
    handed_in = {(student, notebook) for student, notebook, _ in _submitted(batch)}
    short = {student: (notebook, score, top) for (student, notebook), (score, top)
             in grades.rows.items() if student in batch.honest and score != top
             and (student, notebook) in handed_in}
    assert not short, f"honest students lost points next to hostile ones: {short}"
    everywhere = {n for (s, n) in grades.rows if s == "zz-honest-everywhere"}
    assert everywhere == {e.notebook for e in EXERCISES}
    for exercise in EXERCISES:
        assert grades.rows[("zz-honest-everywhere", exercise.notebook)] == \
            (exercise.max_score, exercise.max_score)


@pytest.mark.parametrize("hostile", hostile_students(), ids=lambda h: h.name)
def test_hostile_submission_earns_exactly_what_it_may(batch, hostile):
    if hostile.needs_root and os.geteuid() != 0:
        pytest.skip(f"not root: {hostile.needs_root}")
    grades = _grades(batch)
    student = next(s for s, h in batch.students.items() if h.name == hostile.name)
    earned = sum(score for (s, _), (score, _) in grades.rows.items() if s == student)
    limit = hostile.max_points
    if hostile.twin:
        limit = sum(score for (s, _), (score, _) in grades.rows.items()
                    if s == batch.twins[hostile.twin])
    assert earned == limit, f"{hostile.name} ({hostile.threat}) earned {earned}, not {limit}"
    for (s, notebook), (_, top) in grades.rows.items():
        if s == student and exercise_for(notebook):
            assert top <= exercise_for(notebook).max_score, "points in metadata were believed"
    leaks = []
    for path in (batch.out / "students" / student).rglob("*"):
        if path.is_file():
            text = path.read_text(errors="replace")
            leaks += [f"{path.name}: ...{text[max(0, i - 80):i + 200]}..." for i in
                      (text.find("ESCAPED"), text.find(batch.secret)) if i >= 0]
    assert not leaks, f"{hostile.name} ({hostile.threat}) got out:\n" + "\n".join(leaks)


def test_no_process_is_left_behind(batch):
    assert not batch.left, f"the grader left processes behind: {batch.left}"
    assert not batch.marked, f"processes started by hostile code still run: {batch.marked}"


def test_nothing_is_written_outside_the_output_folder(batch):
    assert not batch.new_canaries, f"files written by hostile code: {sorted(batch.new_canaries)}"
    assert not batch.changed, f"the class folder changed: {batch.changed}"


def test_no_network_reaches_this_machine(batch):
    assert not batch.network, f"hostile code reached this machine's loopback: {batch.network}"


# -- single notebooks through `grade` -------------------------------------------------------

def test_a_symlink_to_the_solution_earns_nothing(tmp_path):
    """Gradescope's upload keeps symbolic links: a submission must not be graded through one."""
    link = tmp_path / f"{PARSE.notebook}.ipynb"
    link.symlink_to(SOLUTIONS / PARSE.path)
    done = grade([link], tmp_path / "results.json", *LIMITS[:1])
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads((tmp_path / "results.json").read_text())["score"] == 0


def test_a_notebook_submitted_twice_counts_once(tmp_path):
    """Students' folders often hold Jupyter's '-Copy1' duplicates; they must not add points."""
    first = place(tmp_path, "s", PARSE, fixtures.honest_submission(PARSE))
    second = first.with_name(f"{PARSE.notebook}-Copy1.ipynb")
    second.write_bytes(first.read_bytes())
    done = grade([first, second], tmp_path / "results.json", *LIMITS[:1])
    assert done.returncode == 0, done.stderr[-2000:]
    results = json.loads((tmp_path / "results.json").read_text())
    assert results["score"] == PARSE.max_score, results["score"]


@pytest.mark.parametrize("shape", ["one_long_line", "many_cells"])
def test_a_huge_notebook_is_graded_within_its_time_limit(tmp_path, shape):
    """Up to the 20 MiB size limit, reading and extracting a notebook must stay bounded too."""
    notebook = fixtures.stub_submission(PARSE)
    if shape == "one_long_line":
        notebook.cells.append(nbformat.v4.new_code_cell("x = [" + "1," * 9_000_000 + "]"))
    else:
        # Ids of their own: 60,000 random 8-digit ones would often hold two alike.
        notebook.cells += [nbformat.v4.new_code_cell("x = 1", id=f"many-{index}")
                           for index in range(60_000)]
    path = tmp_path / f"{PARSE.notebook}.ipynb"
    nbformat.write(notebook, str(path))
    assert path.stat().st_size < 20 * 2**20
    try:  # the timeout stops a hang (reading that grows faster than the file), not slowness
        done = grade([path], tmp_path / "results.json", *LIMITS[:1], "--time-limit", "8",
                     timeout=600)
    except subprocess.TimeoutExpired:
        pytest.fail(f"grading one {path.stat().st_size // 2**20} MiB notebook took over 600 s")
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads((tmp_path / "results.json").read_text())["score"] == 0


FLAGGED = ("poisoned_probe_machinery", "poisoned_race_threads", "forged_case_outcomes",
           "forged_outcomes_then_exit", "patched_random",
           "patched_builtins", "race_constants_rebound", "probe_table_extended",
           "setup_classes_subclassed", "codec_swapped_once", "zoneinfo_faked")


def _saved_results(batch: Batch, student: str) -> list[dict]:
    return [json.loads(path.read_text())["result"]
            for path in (batch.out / "students" / student / ".results").rglob("*.json")]


@pytest.mark.parametrize("name", FLAGGED)
def test_tampering_is_flagged_for_the_instructor(batch, name):
    student = next((s for s, h in batch.students.items() if h.name == name), None)
    assert student is not None, f"tests/corpus/hostile/{name}.py is missing from the class"
    flags = [flag for result in _saved_results(batch, student) for flag in result["flags"]]
    assert flags, f"{name} tampered with the grader, and nothing was flagged"


def test_honest_work_is_never_flagged(batch):
    assert all(_saved_results(batch, student) for student in batch.honest)
    flagged = {student: result["flags"] for student in batch.honest
               for result in _saved_results(batch, student) if result["flags"]}
    assert not flagged
