"""Files and options an instructor gives the grader, taken wrong: one sentence, never a
traceback, never a score above the maximum, never a grade given to the wrong person.

Each case here was found by feeding the commands what a busy instructor (or a student who can
edit timestamp.txt) might give them: a negative grace time, a "no deadline" date of 9999, a
roster saved by Excel in Windows-1252, a cut gradebook, an output folder inside the class.
"""

from __future__ import annotations

import csv
import io
import os
import subprocess
import sys
import zoneinfo
from datetime import datetime, timedelta, timezone
from pathlib import Path

import fixtures
import pytest
from grader_cli import grade_batch

from autograder import batch, deadlines, discovery, export, gradebook
from autograder.reference import REPOSITORY
from autograder.rubric import exercise_for

PARSE = exercise_for("01_parse_cron_field")
DUE = "[due]\nschedules = 2026-03-05T23:59:00Z\n"


def policy_from(tmp_path: Path, text: str) -> deadlines.Policy:
    path = tmp_path / "deadlines.toml"
    path.write_text(text)
    return deadlines.load(path)


@pytest.mark.fast
@pytest.mark.parametrize("text, words", [
    (DUE + "[late]\npenalty_per = \"day\"\npenalty_percent = 10\ngrace_minutes = -7200\n",
     "grace_minutes must be at least 0"),
    (DUE + "[late]\nzero_after_hours = -1\n", "zero_after_hours must be at least 0"),
    (DUE + "[late]\ngrace_minutes = inf\n", "grace_minutes must be at least 0"),
    (DUE + "[late]\ngrace_minutes = 1e12\n", "at most"),
    ("[due]\nschedules = 9999-12-31T23:59:00-12:00\n[late]\ngrace_minutes = 10\n",
     "past the last date there is"),
    ("due = 5\n", "write [due] as a section"),
    ("extensions = 5\n" + DUE, "write [extensions] as a section"),
    ("late = 5\n" + DUE, "write [late] as a section"),
    (DUE + "[late]\npenalty_percent = 10\n", "penalty_percent needs penalty_per"),
    ('timezone = "Mars/Olympus"\n' + DUE, "not a time zone this machine knows"),
    ('timezone = "America/Argentina"\n' + DUE, "not a time zone this machine knows"),
    ("timezone = 1\n" + DUE, "not a time zone this machine knows"),
])
def test_a_deadlines_file_that_cannot_be_right_is_refused_in_one_sentence(tmp_path, text, words):
    with pytest.raises(deadlines.DeadlineError) as error:
        policy_from(tmp_path, text)
    assert words in str(error.value) and "\n" not in str(error.value)



@pytest.mark.fast
@pytest.mark.parametrize("late, said, not_said", [
    ("grace_minutes = 1e12", "grace_minutes must be at least 0 and at most 5,270,400 (ten years)",
     "negative"),
    ("zero_after_hours = 100000", "zero_after_hours must be at least 0 and at most 87,840 "
     "(ten years)", "negative"),
    ("zero_after_hours = -1", "zero_after_hours must be at least 0 and at most 87,840", "grace"),
    ("grace_minutes = -5", "a negative grace would turn the late penalty into a bonus", "ten"),
])
def test_a_number_out_of_range_in_late_says_its_bounds_as_written_and_why(tmp_path, late, said,
                                                                          not_said):
    """The largest value is written out in full (not 5.2704e+06), and the reason given is the
    one that applies: ten years for a value too large, the bonus only for a negative grace."""
    with pytest.raises(deadlines.DeadlineError) as error:
        policy_from(tmp_path, DUE + "[late]\n" + late + "\n")
    assert said in str(error.value) and not_said not in str(error.value), str(error.value)

@pytest.mark.fast
@pytest.mark.parametrize("text, zone, utc", [
    ("2026-03-01 12:34:56.123456 UTC", None, "2026-03-01T12:34:56"),  # nbgrader's default
    ("2026-03-01T12:34:56Z", None, "2026-03-01T12:34:56"),
    ("2026-03-01 12:34:56", None, "2026-03-01T12:34:56"),
    ("2026-03-01 12:34:56.000000 GMT", None, "2026-03-01T12:34:56"),
    ("2026-03-01 12:34:56.000000 +0100", None, "2026-03-01T11:34:56"),
    ("2026-03-01T12:34:56-05:00", None, "2026-03-01T17:34:56"),
    ("2026-06-01 12:34:56.000000 Europe/London", None, "2026-06-01T11:34:56"),
    ("2026-06-01 12:34:56.000000 BST", "Europe/London", "2026-06-01T11:34:56"),
    ("2026-01-01 12:34:56.000000 GMT", "Europe/London", "2026-01-01T12:34:56"),
    ("2026-07-01 12:34:56.000000 CEST", "Europe/Berlin", "2026-07-01T10:34:56"),
    ("2026-07-01 12:34:56.000000 PDT", "America/Los_Angeles", "2026-07-01T19:34:56"),
    # the hour that happens twice when summer time ends: the abbreviation says which
    ("2026-10-25 01:30:00.000000 BST", "Europe/London", "2026-10-25T00:30:00"),
    ("2026-10-25 01:30:00.000000 GMT", "Europe/London", "2026-10-25T01:30:00"),
])
def test_nbgrader_timestamps_are_read_in_every_form_it_writes(text, zone, utc):
    """nbgrader writes its Exchange.timezone's time with that zone's abbreviation."""
    place = zoneinfo.ZoneInfo(zone) if zone else None
    when = deadlines.parse_timestamp(text, place)
    assert when.astimezone(timezone.utc).replace(tzinfo=None).isoformat("T", "seconds") == utc


@pytest.mark.fast
@pytest.mark.parametrize("text, zone, words", [
    ("2026-06-01 12:34:56.000000 BST", None, "names no timezone"),
    ("2026-01-01 12:34:56.000000 BST", "Europe/London", "not what Europe/London is called"),
    ("2026-06-01 12:34:56.000000 CEST", "Europe/London", "not what Europe/London is called"),
    ("2026-06-01 12:34:56 Mars/Olympus", None, "no time zone this machine knows"),
    # a folder of zones, and a zone's file read as a folder: an OSError, which stopped the
    # whole batch once every notebook was graded
    ("2026-06-01 12:34:56 America/Argentina", None, "no time zone this machine knows"),
    ("2026-06-01 12:34:56 Europe/London/x", None, "no time zone this machine knows"),
    ("on time, honest", None, "not a date and time"),
    ("2026-06-01 12:34:56+01:00 UTC", None, "two time zones"),
    ("", None, "not a date and time"),
])
def test_a_timestamp_that_names_no_time_is_an_error_never_on_time(text, zone, words):
    """A student who writes junk in timestamp.txt, or a zone the grader cannot place, does not
    pass for "on time" unnoticed: the class's rows say so and flag it."""
    place = zoneinfo.ZoneInfo(zone) if zone else None
    with pytest.raises(deadlines.TimestampError) as error:
        deadlines.parse_timestamp(text, place)
    assert words in str(error.value) and "\n" not in str(error.value)


@pytest.mark.fast
def test_a_timestamp_is_read_with_the_deadlines_files_timezone(tmp_path):
    policy = policy_from(tmp_path, 'timezone = "Europe/London"\n' + DUE)
    folder = tmp_path / "ada"
    folder.mkdir()
    (folder / "timestamp.txt").write_text("2026-03-06 08:00:00.000000 GMT\n")
    when = deadlines.read_timestamp(folder, policy.zone)
    assert policy.judge("ada", "schedules", when).late_by == timedelta(hours=8, minutes=1)
    (folder / "timestamp.txt").write_bytes(b"\xff\xfe")
    with pytest.raises(deadlines.TimestampError, match="not UTF-8"):
        deadlines.read_timestamp(folder, policy.zone)


@pytest.mark.fast
def test_a_late_penalty_is_never_a_bonus():
    policy = deadlines.Policy(due={"schedules": datetime(2026, 3, 5, tzinfo=timezone.utc)},
                              grace=timedelta(days=-5), penalty_per="day", penalty_percent=10)
    early = datetime(2026, 3, 2, tzinfo=timezone.utc)
    assert policy.judge("ada", "schedules", early).fraction == 0.0


@pytest.mark.fast
def test_an_extension_for_no_student_is_a_warning_and_the_grades_csv_name_works(tmp_path):
    later = "schedules = 2026-03-09T23:59:00Z\n"
    policy = policy_from(tmp_path, f"{DUE}[extensions.Ada]\n{later}[extensions.\"'-bo\"]\n{later}")
    found = discovery.Discovery(students=["ada", "-bo"], assignments=("schedules",),
                                submissions=[])
    said = io.StringIO()
    matched = batch.match_extensions(found, policy, said)
    assert list(matched.extensions) == ["-bo"]
    assert "an extension names 'Ada', who is not a student of this class" in said.getvalue()
    assert policy.extensions.keys() == {"Ada", "'-bo"}  # the loaded policy is left as it was


NFD, NFC = "Jose\u0301", "Jos\u00e9"  # `José` as a zip made on a Mac holds it, and as typed


@pytest.mark.fast
def test_a_name_in_another_unicode_normal_form_applies_to_that_folder_with_a_note(tmp_path):
    """The class was zipped on a Mac (folder `Jose` + U+0301); the instructor types `José`
    (one letter) in overrides.csv and deadlines.toml. The two look the same, so "not a student
    of this class" told nobody why: the override and the extension apply to that folder, and
    a note shows both names in code points."""
    from autograder import overrides

    found = discovery.Discovery(students=[NFD, "bo"], assignments=("schedules",),
                                submissions=[])
    path = tmp_path / "overrides.csv"
    path.write_text(f"student,notebook,score,reason\n{NFC},{PARSE.notebook},20,by hand\n",
                    encoding="utf-8")
    said = io.StringIO()
    matched = batch.match_overrides(found, overrides.load(path)[0], said)
    assert list(matched) == [(NFD, PARSE.notebook)]
    assert matched[(NFD, PARSE.notebook)].student == NFD
    later = "schedules = 2026-03-09T23:59:00Z\n"
    policy = policy_from(tmp_path, f'{DUE}[extensions."{NFC}"]\n{later}')
    assert list(batch.match_extensions(found, policy, said).extensions) == [NFD]
    notes = said.getvalue().splitlines()
    assert len(notes) == 2, notes
    for line, what in zip(notes, ("an override", "an extension"), strict=True):
        assert line.startswith(f"note: {what} names '{NFC}' (Jos\\u00e9), which is the "
                               f"student '{NFD}' (Jose\\u0301) in another Unicode normal "
                               "form"), line
        assert "applied to that student" in line


@pytest.mark.fast
def test_a_name_that_fits_several_folders_in_some_normal_form_goes_to_none():
    """`ệ` composed (U+1EC7) and decomposed (e U+0323 U+0302) are both folders: each of
    those names gets its own folder (an exact match always wins), and a third spelling
    (U+00EA U+0323) goes to neither, with a warning that tells the two apart."""
    from autograder import overrides

    composed, decomposed, third = "\u1ec7", "e\u0323\u0302", "\u00ea\u0323"
    found = discovery.Discovery(students=[composed, decomposed], assignments=("schedules",),
                                submissions=[])
    given = {(name, PARSE.notebook): overrides.Override(name, PARSE.notebook, 20.0, "hand")
             for name in (composed, decomposed, third)}
    said = io.StringIO()
    matched = batch.match_overrides(found, given, said)
    assert sorted(matched) == sorted([(composed, PARSE.notebook), (decomposed, PARSE.notebook)])
    assert said.getvalue().splitlines() == [
        f"warning: an override names '{third}' (\\u00ea\\u0323), which is the same text as "
        f"each of the students '{decomposed}' (e\\u0323\\u0302), '{composed}' (\\u1ec7) in "
        "other Unicode normal forms; ignored: copy the name of the one you mean from grades.csv"]


@pytest.mark.fast
def test_case_and_letter_forms_are_never_guessed_but_the_warning_names_the_folder():
    """`Ada` for the folder ada, fullwidth `ａｄａ`, or `аda` with a Cyrillic `а`, may be
    another student (each can be a folder of the class): never applied, and the warning names
    the folder it reads like, in code points where the terminal shows names alike."""
    from autograder import overrides

    found = discovery.Discovery(students=["ada", "bo"], assignments=("schedules",),
                                submissions=[])
    given = {(name, PARSE.notebook): overrides.Override(name, PARSE.notebook, 20.0, "hand")
             for name in ("Ada", "\uff41\uff44\uff41", "\u0430da")}
    said = io.StringIO()
    assert batch.match_overrides(found, given, said) == {}
    warnings = said.getvalue().splitlines()
    assert len(warnings) == 3, warnings
    assert warnings[2].startswith("warning: an override names '\u0430da' (\\u0430da), who is "
                                  "not a student of this class"), warnings[2]
    assert "it reads like 'ada' (a name that differs in case, in a letter's form or in a " \
        "letter's script" in warnings[2], warnings[2]
    assert warnings[0].startswith("warning: an override names 'Ada', who is not a student of "
                                  "this class (their folder name, as in grades.csv); it reads "
                                  "like 'ada' (a name that differs in case"), warnings[0]
    assert warnings[1].startswith("warning: an override names '\uff41\uff44\uff41' "
                                  "(\\uff41\\uff44\\uff41), who is not a student"), warnings[1]
    assert "it reads like 'ada'" in warnings[1] and warnings[1].endswith("; ignored")


@pytest.mark.fast
def test_two_overrides_or_extensions_for_one_student_written_two_ways_are_a_warning(tmp_path):
    """An override for `José` typed, and one for the folder's own `Jose` + U+0301 (copied from
    grades.csv): both mean one student's notebook, so the second would replace the first
    without a word. The last one counts, with a warning; so too for extensions."""
    from autograder import overrides

    found = discovery.Discovery(students=[NFD], assignments=("schedules",), submissions=[])
    given = {(NFC, PARSE.notebook): overrides.Override(NFC, PARSE.notebook, 20.0, "typed"),
             (NFD, PARSE.notebook): overrides.Override(NFD, PARSE.notebook, 15.0, "copied")}
    said = io.StringIO()
    matched = batch.match_overrides(found, given, said)
    assert matched[(NFD, PARSE.notebook)].reason == "copied"
    assert f"warning: a second override for '{NFD}' (Jose\\u0301) {PARSE.notebook}, written " \
        "another way; the last one counts" in said.getvalue()
    later = datetime(2026, 3, 9, tzinfo=timezone.utc)
    policy = deadlines.Policy(extensions={NFC: {"schedules": later},
                                          NFD: {"schedules": later + timedelta(days=1)}})
    assert batch.match_extensions(found, policy, said).extensions == {
        NFD: {"schedules": later + timedelta(days=1)}}
    assert f"warning: a second extension for '{NFD}' (Jose\\u0301), written another way; the " \
        "last one counts" in said.getvalue()


@pytest.mark.fast
def test_a_roster_that_is_not_utf8_or_names_an_id_twice_is_said_plainly(tmp_path):
    (tmp_path / "grades.csv").write_text(
        "student,assignment,notebook,score,max_score,note,override\n"
        "ada,schedules,01_parse_cron_field,25,25,,\nbob,schedules,01_parse_cron_field,5,25,,\n")
    latin = tmp_path / "latin1.csv"
    latin.write_bytes("student,lms_id\nzoë,1\n".encode("cp1252"))
    with pytest.raises(export.ExportError, match="not a UTF-8 CSV file"):
        export.export(tmp_path, "csv", latin)
    roster = tmp_path / "roster.csv"
    roster.write_text("student,lms_id\nada,111\nbob,111\ncy,\n")
    _, warnings = export.export(tmp_path, "canvas", roster)
    assert any("the LMS id '111' more than once" in warning for warning in warnings), warnings
    assert any("'cy' no lms_id" in warning for warning in warnings), warnings


@pytest.mark.fast
@pytest.mark.parametrize("damage", ["cut", "twice"])
def test_a_damaged_gradebook_is_one_sentence_in_export_and_gradebook(tmp_path, damage, capsys):
    good = ("student,assignment,notebook,score,max_score,note,override\n"
            "ada,schedules,01_parse_cron_field,25,25,,\n")
    text = good + "bob,schedules" if damage == "cut" else \
        good + "ada,schedules,01_parse_cron_field,25,25,,\n"
    (tmp_path / "grades.csv").write_text(text)
    with pytest.raises(export.ExportError, match="not a gradebook written by grade-batch"):
        export.export(tmp_path, "csv")
    assert gradebook.main([str(tmp_path / "grades.csv")]) == 2
    assert "not a gradebook written by grade-batch" in capsys.readouterr().err


def _refusal(done: subprocess.CompletedProcess, submitted: Path) -> str:
    """The one sentence that refused an output in the class folder `submitted`."""
    assert done.returncode == 2, done.stderr[-2000:]
    said = [line for line in done.stderr.splitlines() if not line.startswith("warning:")]
    assert len(said) == 1 and f"lies in the class folder {submitted}, where what it writes " \
        "would be read as a student's submission" in said[0], said
    return said[0]


@pytest.mark.parametrize("where", ["", "ada", "empty", "graded", "ada/schedules/graded"])
def test_an_output_folder_anywhere_in_the_class_is_refused(tmp_path, where):
    """The class folder itself, a student's folder (`--out submitted/ada`), an empty folder
    in the class (a student who has not submitted yet: it was taken for the output without a
    word, and that student had no row), a new folder in it, or a folder inside a student's:
    each is refused in one sentence, and nothing is written into the class."""
    submitted = tmp_path / "submitted"
    for student in ("ada", "bo"):
        fixtures.place(submitted, student, PARSE, fixtures.honest_submission(PARSE))
    (submitted / "empty").mkdir()
    before = sorted(path.relative_to(submitted) for path in submitted.rglob("*"))
    _refusal(grade_batch(submitted, submitted / where, "--sandbox", "off"), submitted)
    assert sorted(path.relative_to(submitted) for path in submitted.rglob("*")) == before


def test_merge_and_export_never_write_into_the_class_their_grades_come_from(tmp_path):
    """Each shard's batch.json records the class folder it was graded from: `merge --out` and
    `export --out` in it (an empty student folder, a student's assignment folder, where every
    student's grades would sit among one student's files) are refused in one sentence; beside
    the class both work, and so does grade-batch again into its own folder."""
    submitted = tmp_path / "submitted"
    for student in ("ada", "bo", "cy"):
        fixtures.place(submitted, student, PARSE, fixtures.honest_submission(PARSE))
    (submitted / "empty").mkdir()
    for part in (1, 2):
        done = grade_batch(submitted, tmp_path / f"part{part}", "--sandbox", "off",
                           "--shard", f"{part}/2")
        assert done.returncode == 0, done.stderr[-2000:]
    before = sorted(path.relative_to(submitted) for path in submitted.rglob("*"))

    def command(*arguments: str | Path) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "autograder", *map(str, arguments)],
                              cwd=REPOSITORY, capture_output=True, text=True, timeout=300)

    shards = (tmp_path / "part1", tmp_path / "part2")
    _refusal(command("merge", *shards, "--out", submitted / "empty"), submitted)
    merged = tmp_path / "graded"
    assert command("merge", *shards, "--out", merged).returncode == 0
    spot = submitted / "ada" / "schedules" / "export.csv"
    assert "--out " in _refusal(command("export", merged, "--out", spot), submitted)
    assert sorted(path.relative_to(submitted) for path in submitted.rglob("*")) == before
    done = command("export", merged, "--out", tmp_path / "export.csv")
    assert done.returncode == 0, done.stderr
    assert export.read_gradebook(merged) == {"ada": {"schedules": 25.0},
                                             "bo": {"schedules": 25.0},
                                             "cy": {"schedules": 25.0},
                                             "empty": {"schedules": None}}
    for _ in range(2):  # the second run finds the first one's files in its output folder
        again = grade_batch(submitted, tmp_path / "part1", "--sandbox", "off", "--shard", "1/2")
        assert again.returncode == 0, again.stderr[-2000:]


def test_a_gradescope_bundle_is_not_written_over_a_folder(tmp_path):
    done = subprocess.run([sys.executable, "-m", "autograder", "gradescope", "schedules",
                           "--out", str(tmp_path)], cwd=REPOSITORY, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 2 and "is a folder; name the zip file" in done.stderr, done.stderr
    assert not list(tmp_path.parent.glob(f".{tmp_path.name}.tmp"))


def test_rows_of_a_gradebook_are_read_as_written(tmp_path):
    """The cells the checks above read are the ones grade-batch writes (a guard against a
    test that passes because it reads some other file)."""
    submitted, out = tmp_path / "submitted", tmp_path / "graded"
    fixtures.place(submitted, "ada", PARSE, fixtures.honest_submission(PARSE))
    assert grade_batch(submitted, out, "--sandbox", "off").returncode == 0
    with open(out / "grades.csv", newline="", encoding="utf-8") as handle:
        header = next(csv.reader(handle))
    assert header[:4] == ["student", "assignment", "notebook", "score"]
    assert export.read_gradebook(out) == {"ada": {"schedules": 25.0}}


@pytest.mark.fast
def test_the_summary_lists_a_few_flagged_students_and_counts_the_rest(tmp_path):
    """A class copied with hard links has every notebook flagged: the summary names the first
    students (a refusal without a notebook name reads without an empty one) and counts the
    others, instead of printing a line for each of thousands."""
    flagged = [(f"s{number:04d}", "schedules", PARSE.notebook, "hard-linked")
               for number in range(50)]
    flagged.append(("mal", "schedules", "", "refused: a symbolic link"))
    summary = batch.Summary(graded=51, seconds=1.0, flagged=sorted(flagged))
    text = summary.line(tmp_path)
    assert "tampering noticed for 51 students" in text
    lines = [line for line in text.splitlines() if line.startswith("  ")]
    assert len(lines) == batch.MAX_LISTED + 1
    assert lines[-1] == f"  ... and {51 - batch.MAX_LISTED} more students"
    assert "  mal: refused: a symbolic link" in lines


@pytest.mark.fast
def test_a_class_of_names_that_are_not_utf8_gets_a_name_each(tmp_path):
    """A Latin-1 folder name (a Windows zip's) that reads like a UTF-8 name beside it, and whose
    escaped form is taken too, gets a numbered name of its own."""
    names = [os.fsdecode(b"caf\xe9"), "café", "caf\\xe9"]
    shown = discovery.student_names(names)
    assert len(set(shown.values())) == len(names), shown
    assert shown[os.fsdecode(b"caf\xe9")] == "caf\\xe9 (2)"
