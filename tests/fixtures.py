"""Build submissions the way students produce them, for tests, benchmarks and the demo class.

A submission starts from the released student copy in `notebooks/` and replaces answer cells
(by nbgrader grade_id) with other code: the reference answers for an honest submission, the
untouched stubs for an empty one, or an entry of a corpus of wrong or hostile solutions.

Corpus entries are Python files such as `tests/corpus/wrong/01_parse_cron_field/exclusive_range.py`:

    # Bug: a-b ranges leave out b.
    # notebook: 01_parse_cron_field
    # loses: test_parse_cron_field
    # %% answer_parse_cron_field
    def parse_cron_field(field, low, high):
        ...
    # %% new
    print("a cell the student added after it")

Header lines before the first `# %%` are `key: value` comments. `# %% <grade_id>` replaces
that answer cell; `# %% new` adds a cell of the student's own after the answer cell before it.

Most wrong solutions are the reference answer with one bug, so `# %% <grade_id> edited` gives
the answer cell as the reference's (from `solutions/`, without nbgrader's markers) with
changes written as comment lines, like a diff's: `#  line` stays, `#-line` goes, `#+line` comes
in (the line follows the two characters exactly, indentation and all; a lone `#` is a blank
line that stays), and `# @@` starts the next change. The lines a change keeps or removes must
stand exactly once in the answer, in that order:

    # %% answer_parse_cron_field edited
    #         if base == "*":
    #-            start, end = low, high
    #+            start, end = 0, high
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from autograder.reference import (
    REPOSITORY,
    SOLUTIONS,
    is_answer_cell,
    nbgrader_meta,
    source_notebook,
)
from autograder.rubric import Exercise, exercise_for

RELEASE = REPOSITORY / "notebooks"
SOLUTION_MARKER = re.compile(r"^\s*### (BEGIN|END) SOLUTION\s*$")


@dataclass
class CorpusEntry:
    path: Path
    header: dict[str, str]
    answers: dict[str, str] = field(default_factory=dict)  # grade_id -> source
    extra: list[tuple[str, str]] = field(default_factory=list)  # (after grade_id, source)

    @property
    def name(self) -> str:
        return self.path.stem

    @property
    def exercise(self) -> Exercise:
        exercise = exercise_for(self.header["notebook"])
        if exercise is None:
            raise ValueError(f"{self.path}: unknown notebook {self.header['notebook']!r}")
        return exercise


def read_corpus_entry(path: Path) -> CorpusEntry:
    header: dict[str, str] = {}
    entry = CorpusEntry(path=path, header=header)
    section: str | None = None
    edited = False
    last_answer: str | None = None
    lines: list[str] = []

    def close() -> None:
        if section is None:
            return
        text = "\n".join(lines).strip("\n")
        if edited:
            if "notebook" not in header:
                raise ValueError(f"{path}: the header needs a '# notebook: NN_name' line")
            entry.answers[section] = apply_edits(reference_answers(entry.exercise)[section],
                                                 lines, f"{path}, {section}")
        elif section == "new":
            entry.extra.append((last_answer or "", text))
        elif section.startswith("new:"):  # a cell of the student's own after the answer named
            entry.extra.append((section[4:], text))
        else:
            entry.answers[section] = text

    for line in Path(path).read_text().splitlines():
        marker = re.match(r"^# %% (\S+)( edited)?\s*$", line)
        if marker:
            close()
            section, edited, lines = marker.group(1), bool(marker.group(2)), []
            if edited and section.startswith("new"):
                raise ValueError(f"{path}: only an answer cell can be edited, not {section!r}")
            if section != "new" and not section.startswith("new:"):
                last_answer = section
        elif section is None:
            found = re.match(r"^#\s*([\w-]+):\s*(.*)$", line)
            if found:
                header[found.group(1).lower()] = found.group(2).strip()
        else:
            lines.append(line)
    close()
    if "notebook" not in header:
        raise ValueError(f"{path}: the header needs a '# notebook: NN_name' line")
    if "answers-from" in header:  # the answers of another entry, then this one's own cells
        base = read_corpus_entry(Path(__file__).parent / "corpus" / f"{header['answers-from']}.py")
        entry.answers = {**base.answers, **entry.answers}
    return entry


def apply_edits(answer: str, lines: list[str], where: str) -> str:
    """`answer` with the changes that `lines` write (see the module's docstring)."""
    changes: list[list[tuple[str, str]]] = [[]]
    for line in lines:
        if line == "# @@":
            changes.append([])
        elif line == "#":
            changes[-1].append((" ", ""))
        elif len(line) >= 2 and line[0] == "#" and line[1] in " -+":
            changes[-1].append((line[1], line[2:]))
        elif line.strip():
            raise ValueError(f"{where}: {line!r} is not a line of a change "
                             "('#  kept', '#-removed', '#+added' or '# @@')")
    text = answer.splitlines()
    for number, change in enumerate((c for c in changes if c), start=1):
        before = [line for kind, line in change if kind in " -"]
        after = [line for kind, line in change if kind in " +"]
        places = [i for i in range(len(text) - len(before) + 1)
                  if text[i:i + len(before)] == before]
        if not before:
            raise ValueError(f"{where}: change {number} keeps and removes no line, so it has "
                             "no place in the reference answer")
        if len(places) != 1:
            raise ValueError(f"{where}: the lines change {number} keeps or removes stand "
                             f"{len(places)} times in the reference answer, not once")
        text[places[0]:places[0] + len(before)] = after
    return "\n".join(text)


def read_corpus(folder: Path) -> list[CorpusEntry]:
    return [read_corpus_entry(p) for p in sorted(Path(folder).rglob("*.py"))]


def reference_answers(exercise: Exercise) -> dict[str, str]:
    """The answer cells of the source notebook, without nbgrader's solution markers."""
    answers = {}
    for cell in source_notebook(exercise).cells:
        if is_answer_cell(cell):
            kept = [ln for ln in cell.source.splitlines() if not SOLUTION_MARKER.match(ln)]
            answers[nbgrader_meta(cell)["grade_id"]] = "\n".join(kept)
    return answers


def released_notebook(exercise: Exercise) -> nbformat.NotebookNode:
    return nbformat.read(RELEASE / exercise.path, as_version=4)


def run_source_notebook(exercise: Exercise, until: str | None = None) -> dict:
    """Run the source notebook's code cells in this process, in order, in its own folder and
    with matplotlib's Agg backend: every cell but the grade cells and the timing cells (tagged
    `nbval-ignore-output`), up to and including the cell whose grade_id is `until` (all of
    them without it). Returns the names the cells defined, with `figures` (every figure they
    drew) and `figures_of` (the figures each cell drew, by grade_id)."""
    import os
    import warnings

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    notebook = source_notebook(exercise)
    names: dict = {"__name__": "__main__"}
    figures_of: dict[str, list] = {}
    here = os.getcwd()
    os.chdir(SOLUTIONS / exercise.assignment)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # plt.show() on Agg warns that it shows nothing
            for cell in notebook.cells:
                grade_id = nbgrader_meta(cell).get("grade_id", "")
                if (cell.cell_type != "code" or grade_id.startswith("test_")
                        or "nbval-ignore-output" in cell.metadata.get("tags", [])):
                    continue
                before = set(plt.get_fignums())
                exec(compile(cell.source, grade_id, "exec"), names)
                figures_of[grade_id] = [plt.figure(n) for n in plt.get_fignums() if n not in before]
                if grade_id == until:
                    break
            else:
                assert until is None, f"{exercise.notebook} has no code cell {until!r}"
    finally:
        os.chdir(here)
    names["figures"] = [figure for drawn in figures_of.values() for figure in drawn]
    names["figures_of"] = figures_of
    return names


def starts_processes(most: int, wrong_from: int, holding: str = "") -> str:
    """Student code that starts processes until it cannot or has `most` (they wait, using no
    CPU), runs `holding` (code that sees them in `children`), ends them again, and answers 01
    wrongly when it started `wrong_from` or more."""
    return f"""
import os, signal, time
children = []
while len(children) < {most}:
    try:
        pid = os.fork()
    except OSError:
        break
    if pid == 0:
        time.sleep(60)
        os._exit(0)
    children.append(pid)
{holding}
for pid in children:
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
if len(children) >= {wrong_from}:
    def parse_cron_field(field, low, high):
        raise RuntimeError(f"started {{len(children)}} processes")
"""


def build_submission(exercise: Exercise, answers: dict[str, str] | None = None,
                     extra: list[tuple[str, str]] | None = None) -> nbformat.NotebookNode:
    """The released notebook with some answer cells replaced and student cells added."""
    notebook = copy.deepcopy(released_notebook(exercise))
    answers = answers or {}
    cells = []
    for cell in notebook.cells:
        meta = nbgrader_meta(cell)
        grade_id = meta.get("grade_id")
        if is_answer_cell(cell) and grade_id in answers:
            cell.source = answers[grade_id]
        cells.append(cell)
        for after, source in extra or []:
            if after == grade_id or (after == "" and is_answer_cell(cell) and
                                     grade_id == _first_answer(notebook)):
                cells.append(nbformat.v4.new_code_cell(source))
    notebook.cells = cells
    return notebook


def _first_answer(notebook: nbformat.NotebookNode) -> str | None:
    for cell in notebook.cells:
        if is_answer_cell(cell):
            return nbgrader_meta(cell).get("grade_id")
    return None


def honest_submission(exercise: Exercise) -> nbformat.NotebookNode:
    return build_submission(exercise, reference_answers(exercise))


def stub_submission(exercise: Exercise) -> nbformat.NotebookNode:
    return build_submission(exercise)


def corpus_submission(entry: CorpusEntry) -> nbformat.NotebookNode:
    """A corpus entry on top of the honest answers: only the cells it names change."""
    answers = reference_answers(entry.exercise)
    answers.update(entry.answers)
    return build_submission(entry.exercise, answers, entry.extra)


def verdicts_in_process(notebook: nbformat.NotebookNode, exercise: Exercise) -> dict[str, list]:
    """Every hidden case's verdict per graded item, grading in this process with the same
    cells, probes and scoring as the sandbox. For trusted submissions only (suite development
    and tests of the suites); `python -m autograder` is the safe path."""
    from autograder.notebook import extract
    from autograder.sandbox.harness import run_notebook_code
    from autograder.scoring import grade_in_process

    extracted = extract(notebook, exercise)
    namespace: dict = {"__name__": "__main__"}
    for _ in run_notebook_code(namespace, extracted.prelude, extracted.cells, 30.0):
        pass  # a cell that fails costs the cases that need it, as in the sandbox
    return grade_in_process(exercise, namespace)


def score_in_process(notebook: nbformat.NotebookNode, exercise: Exercise) -> dict[str, float]:
    """Points per graded item from `verdicts_in_process` (trusted submissions only)."""
    from autograder.scoring import item_points

    verdicts = verdicts_in_process(notebook, exercise)
    return {grade_id: item_points(found) for grade_id, found in verdicts.items()}


CORPUS = REPOSITORY / "tests" / "corpus"


def submission_for(exercise: Exercise, kind: str) -> nbformat.NotebookNode | str | None:
    """A notebook for one roster entry, raw text for a damaged file, or None for "missing".

    Kinds: "honest", "stub", "missing", "not-json", or a corpus entry such as
    "wrong/02_cron_matches/weekday_from_monday" (a path under tests/corpus, without .py).
    """
    if kind == "honest":
        return honest_submission(exercise)
    if kind == "stub":
        return stub_submission(exercise)
    if kind == "missing":
        return None
    if kind == "not-json":
        return "I could not get Jupyter to save, so here are my answers as text.\n"
    path = CORPUS / f"{kind}.py"
    if not path.is_file():
        raise ValueError(f"the roster names {kind!r}, but {path} does not exist")
    entry = read_corpus_entry(path)
    if entry.exercise != exercise:
        raise ValueError(f"{path} is for {entry.exercise.notebook}, not {exercise.notebook}")
    return corpus_submission(entry)


def place(submitted: Path, student: str, exercise: Exercise, made: object,
          name: str | None = None) -> Path:
    """Write one submission as SUBMITTED/<student>/<assignment>/<notebook>.ipynb.

    `made` is a notebook node, or bytes/str for a file that is not one."""
    name = name or f"{exercise.notebook}.ipynb"
    target = Path(submitted) / student / exercise.assignment / name
    target.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(made, bytes):
        target.write_bytes(made)
    elif isinstance(made, str):
        target.write_text(made)
    else:
        nbformat.write(made, str(target))
    return target


def build_class(roster_path: Path, out: Path) -> int:
    """Write SUBMITTED/<student>/<assignment>/<notebook>.ipynb for every student of a roster.

    The roster (JSON) names, per student, a default kind and per-notebook exceptions; see
    data/sample_class/roster.json. Returns the number of notebook files written.
    """
    import json

    from autograder.rubric import EXERCISES

    roster = json.loads(Path(roster_path).read_text())
    written = 0
    for student, plan in roster["students"].items():
        for exercise in EXERCISES:
            kind = plan.get("notebooks", {}).get(exercise.notebook, plan.get("default", "honest"))
            made = submission_for(exercise, kind)
            if made is not None:
                place(out, student, exercise, made)
                written += 1
    return written


def main(argv: list[str] | None = None) -> int:
    import argparse
    import json

    parser = argparse.ArgumentParser(
        prog="python tests/fixtures.py",
        description="Build a class of submissions (nbgrader's submitted/ layout) from a roster.")
    parser.add_argument("roster", type=Path, help="roster JSON, e.g. data/sample_class/roster.json")
    parser.add_argument("out", type=Path,
                        help="folder to write <student>/<assignment>/*.ipynb into")
    args = parser.parse_args(argv)
    if not args.roster.is_file():
        parser.exit(2, f"error: the roster {args.roster} does not exist\n")
    try:
        count = build_class(args.roster, args.out)
    except json.JSONDecodeError as error:
        parser.exit(2, f"error: the roster {args.roster} is not valid JSON ({error})\n")
    except (ValueError, KeyError, TypeError, AttributeError) as error:
        parser.exit(2, f"error: the roster {args.roster} could not be used: {error}\n")
    print(f"wrote {count} notebooks for the class in {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
