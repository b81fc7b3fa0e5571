"""Every hidden case checks a rule the student copy states: each `Case` of every suite cites,
in `Case.rule`, a phrase that appears word for word (up to line breaks and runs of spaces) in
the exercise section of its released notebook in notebooks/.

An item's exercise section is the Markdown from the last level-2 heading (`## ...`) at or
before its answer cell down to its grade cell: the exercise statement, its rules and
examples, and the self-check's introduction. Narrative before it does not count.

The other way round, every rule the section states as a bullet (`- ...`) is cited by at least
one case, so that a rule a wrong answer could break while keeping full marks does not go
unnoticed; the few bullets that need no case of their own are listed in NEEDS_NO_CASE, each
with its reason. (Numbered steps, such as run_job's, are one procedure, cited as a whole.)
"""

from __future__ import annotations

import re

import nbformat
import pytest
from fixtures import RELEASE

from autograder.reference import is_answer_cell, nbgrader_meta
from autograder.rubric import EXERCISES, GradedItem
from autograder.suite import cases_for

pytestmark = pytest.mark.fast  # no kernel, no sandbox: `make test-fast`

ITEMS = [(exercise, item) for exercise in EXERCISES for item in exercise.items]
SHORTEST_RULE = 12  # characters: a rule is a statement, not a word that happens to occur


def plain_text(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


# Bullets of an exercise section that no case cites, by the words they start with, and why
# they need no case: they say how to work rather than what the answer is, or a test checks
# them in another way.
NEEDS_NO_CASE = {
    "test_cron_matches": {
        "Use your `parse_cron_field` from notebook 01 for each field":
            "how to build the answer (the grader judges answers, not imports)",
    },
    "test_next_run": {
        "Time: each hidden test allows 5 seconds":
            "every case's time limit follows it (tests/test_03_next_run.py)",
    },
}
BULLET = re.compile(r"^[ \t]*[-*] (.*(?:\n(?![ \t]*(?:[-*]|\d+\.) )[ \t]*\S.*)*)", re.MULTILINE)


def section_markdown(notebook: nbformat.NotebookNode, item: GradedItem) -> str:
    cells = notebook.cells
    grade = next(index for index, cell in enumerate(cells)
                 if nbgrader_meta(cell).get("grade_id") == item.grade_id)
    answer = max(index for index in range(grade) if is_answer_cell(cells[index]))
    start = max(index for index in range(answer + 1) if cells[index].cell_type == "markdown"
                and re.search(r"^## ", cells[index].source, re.MULTILINE))
    return "\n".join(cell.source for cell in cells[start:grade + 1]
                     if cell.cell_type == "markdown")


def rule_bullets(markdown: str) -> list[str]:
    """The bullets (`- ...`, with their continuation lines) of some Markdown, as plain text."""
    return [plain_text(found) for found in BULLET.findall(markdown)]


def uncited_bullets(bullets: list[str], rules: list[str], exempt: dict[str, str]) -> list[str]:
    """The bullets that no rule is part of (or that are not part of a rule spanning several)
    and that `exempt` does not name."""
    return [bullet for bullet in bullets
            if not any(rule in bullet or bullet in rule for rule in rules)
            and not any(bullet.startswith(plain_text(start)) for start in exempt)]


@pytest.fixture(scope="module")
def markdown() -> dict[str, str]:
    found = {}
    for exercise, item in ITEMS:
        notebook = nbformat.read(RELEASE / exercise.path, as_version=4)
        found[item.grade_id] = section_markdown(notebook, item)
    return found


@pytest.fixture(scope="module")
def sections(markdown) -> dict[str, str]:
    return {grade_id: plain_text(text) for grade_id, text in markdown.items()}


@pytest.mark.parametrize(("exercise", "item"), ITEMS, ids=[item.grade_id for _, item in ITEMS])
def test_every_case_cites_a_rule_of_its_exercise_section(sections, exercise, item):
    section = sections[item.grade_id]
    assert len(section) > 500, f"{exercise.notebook}: the exercise section of {item.grade_id} " \
                               f"is missing or almost empty"
    problems = []
    for case in cases_for(item):
        rule = plain_text(case.rule)
        if len(rule) < SHORTEST_RULE:
            problems.append(f"{case.name!r} cites no rule")
        elif rule not in section:
            problems.append(f"{case.name!r} cites {rule!r}, which the exercise section of "
                            f"notebooks/{exercise.path} does not say")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize(("exercise", "item"), ITEMS, ids=[item.grade_id for _, item in ITEMS])
def test_every_rule_the_exercise_states_is_checked_by_a_case(markdown, exercise, item):
    rules = [plain_text(case.rule) for case in cases_for(item)]
    exempt = NEEDS_NO_CASE.get(item.grade_id, {})
    uncited = uncited_bullets(rule_bullets(markdown[item.grade_id]), rules, exempt)
    assert not uncited, (f"notebooks/{exercise.path} states rules for {item.grade_id} that no "
                         f"hidden case checks (cite them, or say in NEEDS_NO_CASE why they need "
                         f"no case): {uncited}")
    section = plain_text(markdown[item.grade_id])
    stale = [start for start in exempt if plain_text(start) not in section]
    assert not stale, f"NEEDS_NO_CASE names bullets that {item.grade_id}'s section lacks: {stale}"


def test_a_stated_rule_without_a_case_is_caught():
    """The reverse check itself, on a section like 03's with one rule no case cites."""
    text = ("Return the next run.\n\n- Seconds and microseconds of the result are 0.\n"
            "- `fold` plays no part: the search moves on the wall clock,\n  and the result "
            "has `fold=0`.\n- Time: each hidden test allows 5 seconds.\n\n| call | returns |")
    bullets = rule_bullets(text)
    assert len(bullets) == 3 and bullets[1].endswith("the result has `fold=0`.")
    cited = ["Seconds and microseconds of the result are 0."]
    assert uncited_bullets(bullets, cited, {"Time:": "elsewhere"}) == [bullets[1]]


def test_the_section_is_the_exercise_and_not_the_narrative(sections):
    """The extraction itself: notebook 01's section starts at its exercise heading."""
    section = sections["test_parse_cron_field"]
    assert section.startswith("## Exercise: `parse_cron_field`")
    assert "## The five fields" not in section


@pytest.mark.parametrize("rule", ["", "rule", "a rule the notebook never states anywhere"])
def test_a_case_without_a_stated_rule_is_caught(sections, rule):
    section = sections["test_parse_cron_field"]
    assert len(plain_text(rule)) < SHORTEST_RULE or plain_text(rule) not in section


# Words a student who knows Python but not cron or job graphs meets in a notebook, and the
# words that explain them. The first time the word appears in the student copy's Markdown must
# be inside its explanation, not before it.
EXPLAINED_WHERE_FIRST_USED = {
    "01_parse_cron_field": {
        "crontab": "**crontab** (the file of schedule lines that cron reads)",
    },
    "04_run_order": {
        "topological": "**topological order** (the name the libraries",
        "Kahn": "is **Kahn's algorithm**",
        "DAG": "**DAG** (directed acyclic graph: arrows, and no cycle)",
        "dependents": "",  # not used at all: "the jobs waiting for it" says it in plain words
    },
}


@pytest.mark.parametrize("notebook_name", EXPLAINED_WHERE_FIRST_USED)
def test_a_word_of_the_trade_is_explained_where_it_is_first_used(notebook_name):
    (exercise,) = [exercise for exercise in EXERCISES if exercise.notebook == notebook_name]
    notebook = nbformat.read(RELEASE / exercise.path, as_version=4)
    text = plain_text("\n".join(cell.source for cell in notebook.cells
                                if cell.cell_type == "markdown"))
    for word, explanation in EXPLAINED_WHERE_FIRST_USED[notebook_name].items():
        if not explanation:
            assert word not in text, f"{notebook_name} uses {word!r} without explaining it"
            continue
        where = text.find(plain_text(explanation))
        assert where >= 0, f"{notebook_name} does not explain {word!r} as {explanation!r}"
        first = text.find(word)
        assert first == where + explanation.find(word), (
            f"{notebook_name} uses {word!r} before it explains it: "
            f"{text[max(0, first - 60):first + 60]!r}")


@pytest.mark.parametrize("exercise", EXERCISES, ids=lambda e: e.notebook)
def test_each_student_copy_says_which_cells_run_when_it_is_graded(exercise):
    """Only the setup cells, the answer cells and the student's own cells run when a notebook is
    graded, so a function that uses a name of a worked example or a self-check (05's `math`, 02's
    `as_cron_days`) passes every self-check and still loses its points. The student copy says
    so, and names the setup cells exactly when the notebook has some."""
    from autograder.reference import setup_sources

    notebook = nbformat.read(RELEASE / exercise.path, as_version=4)
    text = plain_text(" ".join(cell.source for cell in notebook.cells
                               if cell.cell_type == "markdown"))
    said = re.search(r"When your notebook is graded, only (.*?) are run, not the [^.]*self-checks?"
                     r", so [^.]* in your answer cells?", text)
    assert said, f"notebooks/{exercise.path} does not say which cells run when it is graded"
    assert ("setup cell" in said.group(1)) == bool(setup_sources(exercise)), (
        f"notebooks/{exercise.path} says that {said.group(1)} run when it is graded")
