"""How corpus entries are read: the `edited` form, a reference answer with diff-like changes."""

from __future__ import annotations

import difflib
from pathlib import Path

import fixtures
import pytest

from autograder.rubric import exercise_for

pytestmark = pytest.mark.fast

CORPUS = Path(__file__).parent / "corpus"
PARSE = exercise_for("01_parse_cron_field")
HEADER = ("# Bug: made up for this test.\n# notebook: 01_parse_cron_field\n"
          "# loses: test_parse_cron_field\n")


def entry(tmp_path: Path, body: str) -> fixtures.CorpusEntry:
    path = tmp_path / "made_up.py"
    path.write_text(HEADER + body)
    return fixtures.read_corpus_entry(path)


def test_an_edited_answer_is_the_reference_with_only_its_changes(tmp_path):
    made = entry(tmp_path, '# %% answer_parse_cron_field edited\n'
                           '#         if base == "*":\n'
                           '#-            start, end = low, high\n'
                           '#+            start, end = 0, high\n'
                           '#+            # a comment of the student\'s own\n')
    reference = fixtures.reference_answers(PARSE)["answer_parse_cron_field"]
    changed = [line for line in difflib.ndiff(reference.splitlines(),
                                             made.answers["answer_parse_cron_field"].splitlines())
               if line[:1] in "-+"]
    assert changed == ["-             start, end = low, high",
                       "+             start, end = 0, high",
                       "+             # a comment of the student's own"]


def test_blank_lines_and_several_changes(tmp_path):
    made = entry(tmp_path, '# %% answer_parse_cron_field edited\n'
                           '#     if field == "":\n'
                           '#-        raise ValueError("the field is empty")\n'
                           '#+        return []\n'
                           '# @@\n'
                           '#         selected.update(range(start, end + 1, step))\n'
                           '#-    return sorted(selected)\n'
                           '#+    return list(selected)\n')
    answer = made.answers["answer_parse_cron_field"]
    assert "return []" in answer and "return list(selected)" in answer
    assert "the field is empty" not in answer and "sorted(selected)" not in answer


@pytest.mark.parametrize("body, says", [
    ("#     return sorted(selected)\n#-    return sorted(selected)\n", "stand 0 times"),
    ("#-        selected.update(range(start, end + 1, step))\n#+        pass\n"
     "#-    return sorted(nothing)\n", "stand 0 times"),
    ("#+    print('where?')\n", "keeps and removes no line"),
    ("    return []\n", "is not a line of a change"),
])
def test_a_change_that_does_not_fit_the_reference_once_is_refused(tmp_path, body, says):
    with pytest.raises(ValueError, match=says) as refused:
        entry(tmp_path, "# %% answer_parse_cron_field edited\n" + body)
    assert "made_up.py, answer_parse_cron_field" in str(refused.value)


def test_lines_that_stand_twice_are_refused_until_a_kept_line_tells_them_apart():
    answer = "def f(x):\n    return x\n\ndef g(x):\n    return x"
    with pytest.raises(ValueError, match="stand 2 times in the reference answer, not once"):
        fixtures.apply_edits(answer, ["#-    return x", "#+    return -x"], "here")
    assert fixtures.apply_edits(answer, ["# def g(x):", "#-    return x", "#+    return -x"],
                                "here") == "def f(x):\n    return x\n\ndef g(x):\n    return -x"


def test_only_answer_cells_are_edited(tmp_path):
    with pytest.raises(ValueError, match="only an answer cell can be edited"):
        entry(tmp_path, "# %% new:answer_parse_cron_field edited\n#-    return sorted(selected)\n")


def test_every_edited_entry_of_the_corpus_changes_its_answer():
    """An edit that leaves the reference as it was would be an honest answer filed as a bug."""
    edited = [path for path in sorted(CORPUS.rglob("*.py")) if " edited" in path.read_text()]
    assert len(edited) > 50
    for path in edited:
        found = fixtures.read_corpus_entry(path)
        reference = fixtures.reference_answers(found.exercise)
        sections = [line.split()[2] for line in path.read_text().splitlines()
                    if line.startswith("# %% ") and line.endswith(" edited")]
        for grade_id in sections:
            assert found.answers[grade_id] != reference[grade_id], f"{path}: {grade_id}"


def test_an_edited_entry_names_its_notebook_first(tmp_path):
    path = tmp_path / "no_notebook.py"
    path.write_text("# Bug: made up.\n# %% answer_parse_cron_field edited\n"
                    "#-    return sorted(selected)\n#+    return list(selected)\n")
    with pytest.raises(ValueError, match="the header needs a '# notebook: NN_name' line"):
        fixtures.read_corpus_entry(path)
