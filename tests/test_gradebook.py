"""The gradebook table that `make demo` prints from grades.csv."""

import re
import unicodedata

import pytest

from autograder import escape
from autograder.gradebook import main, table
from autograder.rubric import EXERCISES, Exercise

pytestmark = pytest.mark.fast


def row(student: str, exercise: Exercise, score: float, **more: str) -> dict[str, str]:
    return {"student": student, "assignment": exercise.assignment, "notebook": exercise.notebook,
            "score": f"{score:g}", "max_score": f"{exercise.max_score:g}", **more}


def test_one_row_per_student_with_the_notebooks_graded_and_their_maximum():
    first, middle, last = EXERCISES[0], EXERCISES[len(EXERCISES) // 2], EXERCISES[-1]
    rows = [row("bo", first, first.max_score), row("bo", middle, middle.max_score - 4.5),
            row("al", last, 5)]
    lines = table(rows).splitlines()
    columns = [e.notebook[:2] for e in (first, middle, last)]
    assert lines[0].split() == ["student", *columns, "total"]
    tops = [first.max_score, middle.max_score, last.max_score]
    assert lines[1].split() == ["(max)", *(f"{t:g}" for t in tops), f"{sum(tops):g}"]
    assert lines[2].split() == ["al", "-", "-", "5", "5"]
    bo = first.max_score + middle.max_score - 4.5
    assert lines[3].split() == ["bo", f"{first.max_score:g}", f"{middle.max_score - 4.5:g}", "-",
                                f"{bo:g}"]
    assert f"{first.notebook[:2]} = {first.notebook}" in lines[-1]


def test_overrides_and_late_penalties_are_marked():
    first, second = EXERCISES[:2]
    rows = [row("bo", first, 20, penalty="", override="regraded by hand"),
            row("bo", second, 22.5, penalty="2.5", override="")]
    lines = table(rows).splitlines()
    assert lines[1].split() == ["(max)", f"{first.max_score:g}", f"{second.max_score:g}",
                                f"{first.max_score + second.max_score:g}"]
    assert lines[2].split() == ["bo", "20*", "22.5L", "42.5"]


def test_a_missing_or_foreign_file_is_one_sentence(tmp_path, capsys):
    assert main([str(tmp_path / "grades.csv")]) == 2
    (tmp_path / "other.csv").write_text("name,points\nx,1\n")
    assert main([str(tmp_path / "other.csv")]) == 2
    errors = capsys.readouterr().err.strip().splitlines()
    assert errors == [f"error: {tmp_path / 'grades.csv'} does not exist (run grade-batch first)",
                      f"error: {tmp_path / 'other.csv'} is not a gradebook written by grade-batch"]


def test_students_whose_names_read_alike_are_shown_in_code_points():
    """`José` composed and decomposed would be two rows that read the same: their names are
    shown in code points, and a name that reads like no other as it is."""
    first = EXERCISES[0]
    rows = [row(name, first, 5) for name in ("Jos\u00e9", "Jose\u0301", "bo")]
    lines = table(rows).splitlines()
    assert [line.split()[0] for line in lines[2:5]] == ["Jose\\u0301", "Jos\\u00e9", "bo"]
    assert lines[-1].endswith("names that read alike in code points (Jos\\u00e9)")
    assert "code points" not in table([row("bo", first, 5)])


def test_a_space_no_one_sees_is_shown_in_code_points():
    """`ada` and `ada ` (a space at its end) read alike, and in code points `ada ` was still
    `ada ` : its row read as ada's. A space at an end or beside another is shown as \\u0020."""
    first = EXERCISES[0]
    names = ("ada", "ada ", " ada", "a  da", "a da")
    lines = table([row(name, first, 5) for name in names]).splitlines()
    assert sorted(line.split()[0] for line in lines[2:7]) == sorted(
        ["ada", "ada\\u0020", "\\u0020ada", "a\\u0020\\u0020da", "a"]), lines
    assert [escape.code_points(name) for name in ("a b", "a\\ b")] == ["a b", "a\\\\ b"]


def _drawn_width(text: str) -> int:
    """How many columns a terminal draws `text` in: two for a wide or fullwidth character
    (Unicode's East_Asian_Width W and F), none for a combining mark."""
    return sum(0 if unicodedata.combining(char) else
               2 if unicodedata.east_asian_width(char) in "WF" else 1 for char in text)


def test_wide_and_combining_names_keep_their_rows_columns_in_line():
    """A name in wide characters (`東京太郎`, `ｋｉｍ`) or with a combining accent (`Zoë` with
    U+0308) was padded by its number of characters, so its scores stood two columns right
    for each wide letter, or one left for each accent, of everyone else's. Every line of the
    table is now drawn the same width, and every column starts where the header's does."""
    first, second = EXERCISES[:2]
    names = ("東京太郎", "\uff4b\uff49\uff4d", "Zoe\u0308", "bo")
    rows = [row(name, exercise, 12.5) for name in names for exercise in (first, second)]
    lines = table(rows).splitlines()[:2 + len(names)]
    assert len({_drawn_width(line) for line in lines}) == 1, lines
    starts = {_drawn_width(line.split("12.5")[0]) for line in lines[2:]}
    assert starts == {_drawn_width("東京太郎  ")}, lines
    assert all(line.endswith("12.5  12.5     25") for line in lines[2:]), lines


def test_a_name_with_a_control_character_is_shown_escaped():
    """grades.csv as grade-batch writes it holds names already escaped; one edited by hand
    (or by an older grader) with a terminal escape in a name prints it as \\e, never raw."""
    first = EXERCISES[0]
    text = table([row("kim\x1b[2J\u2800", first, 5), row("bo", first, 5)])
    assert "\x1b" not in text and "\u2800" not in text and "kim\\e[2J\\u2800" in text, text


def test_a_name_wider_than_the_column_is_cut_numbered_and_written_in_full_below():
    """A folder named with 80 Braille blanks (each shown as \\u2800) or 255 letters drew a
    name column of hundreds of columns, and every student's row wrapped. Such a name is cut
    to NAME_COLUMNS with a number, and written in full under the table; two long names with
    the same start keep rows and numbers of their own."""
    from autograder.gradebook import NAME_COLUMNS

    first = EXERCISES[0]
    blanks, letters = "\u2800" * 80, "a" * 255
    names = (blanks, letters, letters[:-1] + "b", "東" * 40, "bo")
    text = table([row(name, first, 5) for name in names])
    lines = text.splitlines()
    rows = lines[2:2 + len(names)]
    assert len({_drawn_width(line) for line in lines[:2 + len(names)]}) == 1, lines
    assert all(_drawn_width(line.split("  ")[0]) <= NAME_COLUMNS for line in rows), rows
    assert ["bo", "5", "5"] in [line.split() for line in rows]
    full = lines[lines.index("Names cut short above, in full:") + 1:]
    shown = {escape.terminal(name) for name in names[:4]}
    assert {line.split(" ", 1)[1] for line in full} == shown, full
    numbers = [line.split(" ", 1)[0] for line in full]
    assert numbers == ["[1]", "[2]", "[3]", "[4]"]
    for number in numbers:  # each number marks one row, cut short
        assert sum(f"… {number}" in line for line in rows) == 1, (number, rows)
    blank_row = next(line for line in rows if line.startswith("\\u2800"))
    assert re.fullmatch(r"(\\u2800)+… \[\d\]", blank_row.split("  ")[0]), blank_row


def test_a_name_that_fits_is_not_cut():
    first = EXERCISES[0]
    text = table([row("a" * 32, first, 5), row("東" * 16, first, 5)])
    assert "Names cut short" not in text and "…" not in text
    assert "a" * 32 in text and "東" * 16 in text
