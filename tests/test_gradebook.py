"""The gradebook table that `make demo` prints from grades.csv."""

from autograder.gradebook import main, table


def test_one_row_per_student_with_the_notebooks_graded_and_their_maximum():
    rows = [
        {"student": "bo", "assignment": "schedules", "notebook": "01_parse_cron_field",
         "score": "25", "max_score": "25"},
        {"student": "bo", "assignment": "schedules", "notebook": "03_next_run",
         "score": "30.5", "max_score": "35"},
        {"student": "al", "assignment": "capstone", "notebook": "07_safe_scheduler",
         "score": "5", "max_score": "25"},
    ]
    lines = table(rows).splitlines()
    assert lines[0].split() == ["student", "01", "03", "07", "total"]
    assert lines[1].split() == ["(max)", "25", "35", "25", "85"]
    assert lines[2].split() == ["al", "-", "-", "5", "5"]
    assert lines[3].split() == ["bo", "25", "30.5", "-", "55.5"]


def test_overrides_and_late_penalties_are_marked():
    rows = [{"student": "bo", "assignment": "schedules", "notebook": "01_parse_cron_field",
             "score": "20", "max_score": "25", "penalty": "", "override": "regraded by hand"},
            {"student": "bo", "assignment": "schedules", "notebook": "02_cron_matches",
             "score": "22.5", "max_score": "25", "penalty": "2.5", "override": ""}]
    lines = table(rows).splitlines()
    assert lines[1].split() == ["(max)", "25", "25", "50"]
    assert lines[2].split() == ["bo", "20*", "22.5L", "42.5"]


def test_a_missing_or_foreign_file_is_one_sentence(tmp_path, capsys):
    assert main([str(tmp_path / "grades.csv")]) == 2
    (tmp_path / "other.csv").write_text("name,points\nx,1\n")
    assert main([str(tmp_path / "other.csv")]) == 2
    errors = capsys.readouterr().err.strip().splitlines()
    assert errors == [f"error: {tmp_path / 'grades.csv'} does not exist (run grade-batch first)",
                      f"error: {tmp_path / 'other.csv'} is not a gradebook written by grade-batch"]
