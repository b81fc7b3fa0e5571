"""Every hidden case checks a rule the student copy states: each `Case` of every suite cites,
in `Case.rule`, a phrase that appears word for word (up to line breaks and runs of spaces) in
the exercise section of its released notebook in notebooks/.

An item's exercise section is the Markdown from the last level-2 heading (`## ...`) at or
before its answer cell down to its grade cell: the exercise statement, its rules and
examples, and the self-check's introduction. Narrative before it does not count.
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


def exercise_section(notebook: nbformat.NotebookNode, item: GradedItem) -> str:
    cells = notebook.cells
    grade = next(index for index, cell in enumerate(cells)
                 if nbgrader_meta(cell).get("grade_id") == item.grade_id)
    answer = max(index for index in range(grade) if is_answer_cell(cells[index]))
    start = max(index for index in range(answer + 1) if cells[index].cell_type == "markdown"
                and re.search(r"^## ", cells[index].source, re.MULTILINE))
    return plain_text("\n".join(cell.source for cell in cells[start:grade + 1]
                                if cell.cell_type == "markdown"))


@pytest.fixture(scope="module")
def sections() -> dict[str, str]:
    found = {}
    for exercise, item in ITEMS:
        notebook = nbformat.read(RELEASE / exercise.path, as_version=4)
        found[item.grade_id] = exercise_section(notebook, item)
    return found


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


def test_the_section_is_the_exercise_and_not_the_narrative(sections):
    """The extraction itself: notebook 01's section starts at its exercise heading."""
    section = sections["test_parse_cron_field"]
    assert section.startswith("## Exercise: `parse_cron_field`")
    assert "## The five fields" not in section


@pytest.mark.parametrize("rule", ["", "rule", "a rule the notebook never states anywhere"])
def test_a_case_without_a_stated_rule_is_caught(sections, rule):
    section = sections["test_parse_cron_field"]
    assert len(plain_text(rule)) < SHORTEST_RULE or plain_text(rule) not in section
