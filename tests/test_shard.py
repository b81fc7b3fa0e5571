"""Grading a class in shards (`grade-batch --shard K/N`) and joining them (`merge`).

A class graded as three shards and merged must equal the same class graded in one run: the
same gradebook, the same lists of what was not graded or flagged, the same reports and
results. Shards graded with another grader are refused with one sentence.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import fixtures
import pytest
from grader_cli import GRADER, grade_batch

from autograder import expected, shard
from autograder.reference import REPOSITORY
from autograder.rubric import exercise_for

PARSE = exercise_for("01_parse_cron_field")
ORDER = exercise_for("04_run_order")
BACKOFF = exercise_for("05_backoff_delays")
# (student, exercise, kind): honest, untouched, buggy, damaged and hostile-named work.
CLASS = [
    ("ada", PARSE, "honest"), ("ada", ORDER, "honest"), ("ada", BACKOFF, "honest"),
    ("bob", PARSE, "stub"),
    ("cy", PARSE, "wrong/01_parse_cron_field/exclusive_range_end"), ("cy", ORDER, "honest"),
    ("=dee", PARSE, "honest"),
    ("eve", ORDER, "wrong/04_run_order/alphabetically_last"),
    ("fay", PARSE, "not-json"), ("gus", ORDER, "stub"), ("hal", PARSE, "honest"),
    # One folder with `hal` on a disk that ignores case, and a name too long for a folder:
    # every shard must name their output folders as one run does.
    ("Hal", PARSE, "stub"), ("é" * 120, ORDER, "honest"),
]
# A late policy: work due in 2020, 10% off per day late.
LATE = ("[due]\nschedules = 2020-01-01T00:00:00+00:00\n\n"
        "[late]\npenalty_per = \"day\"\npenalty_percent = 10\n")


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("shards")
    submitted = root / "submitted"
    for student, exercise, kind in CLASS:
        fixtures.place(submitted, student, exercise, fixtures.submission_for(exercise, kind))
    (submitted / "ivy" / "schedules").mkdir(parents=True)  # handed in nothing
    (submitted / "ivy" / "schedules" / "notes.txt").write_text("I ran out of time.\n")
    done = grade_batch(submitted, root / "whole", "--jobs", "2")
    assert done.returncode == 0, done.stderr[-2000:]
    for k in (1, 2, 3):
        done = grade_batch(submitted, root / f"part{k}", "--jobs", "2", "--shard", f"{k}/3")
        assert done.returncode == 0, done.stderr[-2000:]
    return root


def merge(*args: object) -> subprocess.CompletedProcess:
    return subprocess.run([*GRADER, "merge", *map(str, args)], cwd=REPOSITORY,
                          capture_output=True, text=True, timeout=120)


def files(folder: Path) -> dict[str, object]:
    """Every file a person reads in an output folder (not the saved results or the manifest);
    results.json without its timing, which differs from run to run."""
    found: dict[str, object] = {}
    for path in sorted(folder.rglob("*")):
        if not path.is_file() or ".results" in path.parts or path.name == shard.MANIFEST:
            continue
        if path.name == "results.json":
            data = json.loads(path.read_text())
            data.pop("execution_time", None)
            found[str(path.relative_to(folder))] = data
        elif path.parent.name == ".expected":  # the same values; what the reference cost is a
            data = json.loads(path.read_text())  # measurement of each run's own
            data.pop(expected.COST_KEY, None)
            found[str(path.relative_to(folder))] = data
        else:
            found[str(path.relative_to(folder))] = path.read_bytes()
    return found


def test_each_student_is_graded_in_exactly_one_shard(graded):
    students = [json.loads((graded / f"part{k}" / shard.MANIFEST).read_text())["students"]
                for k in (1, 2, 3)]
    everyone = sorted(name for part in students for name in part)
    assert everyone == sorted({student for student, _, _ in CLASS} | {"ivy"})
    assert all(part for part in students), "three shards of twelve students: none is empty"


def test_three_shards_merged_equal_one_run(graded):
    done = merge(graded / "part1", graded / "part2", graded / "part3", "--out",
                 graded / "merged")
    assert done.returncode == 0, done.stderr
    whole, merged = files(graded / "whole"), files(graded / "merged")
    assert sorted(merged) == sorted(whole)
    for name, content in whole.items():
        assert merged[name] == content, name
    assert b"'=dee" in whole["grades.csv"]  # a name a spreadsheet would run stays inert
    folders = {path.name for path in (graded / "merged" / "students").iterdir()}
    assert len({folder.casefold() for folder in folders}) == len({s for s, _, _ in CLASS}) + 1
    policies = {json.loads((graded / name / shard.MANIFEST).read_text())["policy"]
                for name in ("whole", "part1", "part2", "part3", "merged")}
    assert len(policies) == 1  # one late policy (none) and no overrides, recorded alike


def test_the_partition_is_stable_and_complete():
    students = [f"student{n:04d}" for n in range(300)]
    parts = [shard.shard_of(name, 4) for name in students]
    assert parts == [shard.shard_of(name, 4) for name in students]
    assert set(parts) == {1, 2, 3, 4}
    assert all(sum(1 for p in parts if p == k) > 40 for k in (1, 2, 3, 4))


@pytest.mark.parametrize(("text", "environ", "expected"), [
    ("2/8", {}, shard.Shard(2, 8)),
    ("auto/8", {"JOB_COMPLETION_INDEX": "0"}, shard.Shard(1, 8)),
    ("auto", {"SLURM_ARRAY_TASK_ID": "3", "SLURM_ARRAY_TASK_COUNT": "4"}, shard.Shard(4, 4)),
    ("auto", {"SLURM_ARRAY_TASK_ID": "3", "SLURM_ARRAY_TASK_COUNT": "3",  # --array=1-3
              "SLURM_ARRAY_TASK_MIN": "1"}, shard.Shard(3, 3)),
    ("auto", {"SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_COUNT": "3",
              "SLURM_ARRAY_TASK_MIN": "1"}, shard.Shard(1, 3)),
    ("auto", {"SLURM_ARRAY_TASK_ID": "8", "SLURM_ARRAY_TASK_COUNT": "4",  # --array=2-8:2
              "SLURM_ARRAY_TASK_MIN": "2", "SLURM_ARRAY_TASK_STEP": "2"}, shard.Shard(4, 4)),
])
def test_shard_specifications(text, environ, expected):
    assert shard.parse_shard(text, environ) == expected


@pytest.mark.parametrize("text", ["0/3", "4/3", "2", "a/b", "auto/3"])
def test_bad_shard_specifications_are_one_sentence(text):
    with pytest.raises(shard.ShardError) as error:
        shard.parse_shard(text, {})
    assert "\n" not in str(error.value)


def test_an_index_past_the_count_names_the_variable_and_where_counting_starts():
    with pytest.raises(shard.ShardError) as error:
        shard.parse_shard("auto/3", {"JOB_COMPLETION_INDEX": "3"})
    assert "JOB_COMPLETION_INDEX is 3" in str(error.value)
    assert "count from 0" in str(error.value) and "\n" not in str(error.value)


def test_merge_refuses_shards_graded_differently(graded):
    other = graded / "other-part2"
    subprocess.run(["cp", "-r", str(graded / "part2"), str(other)], check=True)
    manifest = json.loads((other / shard.MANIFEST).read_text())
    manifest["fingerprints"] = {name: "0" * 64 for name in manifest["fingerprints"]}
    (other / shard.MANIFEST).write_text(json.dumps(manifest))
    done = merge(graded / "part1", other, graded / "part3", "--out", graded / "refused")
    assert done.returncode == 2
    assert "was graded with a different grader" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert not (graded / "refused").exists()


def refused_second_shard(graded: Path, name: str, *options: object) -> str:
    """Grade shard 2/3 again into `name` with `options`, merge it with shards 1 and 3, and
    return merge's one sentence (it must refuse, and write nothing)."""
    done = grade_batch(graded / "submitted", graded / name, "--jobs", "2", "--shard", "2/3",
                       *options)
    assert done.returncode == 0, done.stderr[-2000:]
    refused = merge(graded / "part1", graded / name, graded / "part3", "--out",
                    graded / f"refused-{name}")
    assert refused.returncode == 2
    assert len(refused.stderr.strip().splitlines()) == 1
    assert not (graded / f"refused-{name}").exists()
    return refused.stderr


def test_merge_refuses_shards_graded_for_other_assignments(graded):
    """A shard graded with --assignment schedules beside shards of the whole class: its
    students would have no rows for the other assignments, and export would give them 0."""
    said = refused_second_shard(graded, "part2-schedules", "--assignment", "schedules")
    assert "part2-schedules was graded for other notebooks than" in said
    assert "--assignment" in said


def test_merge_refuses_shards_graded_with_other_deadlines(graded):
    """A shard whose machine was given another deadlines file (or none) would not add up to
    one class: merge names it and says what to pass."""
    policy = graded / "deadlines.toml"
    policy.write_text(LATE)
    said = refused_second_shard(graded, "part2late", "--deadlines", policy)
    assert "part2late was graded with other deadlines or overrides" in said
    assert "--deadlines" in said


def test_merge_refuses_a_folder_whose_deadlines_the_shards_did_not_apply(graded):
    """grade-batch applies the deadlines.toml and overrides.csv in its --out folder; shards
    graded elsewhere did not. Merging them into that folder would leave every late penalty
    out of the gradebook without a word, so merge refuses and says what to pass."""
    parts = [graded / f"part{k}" for k in (1, 2, 3)]
    target = graded / "with-deadlines"
    target.mkdir()
    (target / "deadlines.toml").write_text(LATE)
    done = merge(*parts, "--out", target)
    assert done.returncode == 2
    said = done.stderr.strip()
    assert len(said.splitlines()) == 1
    assert "holds deadlines.toml, which the shards were not graded with" in said
    assert f"--deadlines {target / 'deadlines.toml'}" in said
    assert sorted(path.name for path in target.iterdir()) == ["deadlines.toml"]


def test_shards_graded_with_the_folders_deadlines_merge_into_it(graded):
    """The same folder, with shards graded with --deadlines pointing at its file: merged, and
    the gradebook is the one a single run with those deadlines writes."""
    target = graded / "late-gradebook"
    target.mkdir()
    policy = target / "deadlines.toml"
    policy.write_text(LATE)
    parts = []
    for k in (1, 2, 3):
        parts.append(graded / f"late-part{k}")
        done = grade_batch(graded / "submitted", parts[-1], "--jobs", "2", "--shard", f"{k}/3",
                           "--deadlines", policy)
        assert done.returncode == 0, done.stderr[-2000:]
    done = merge(*parts, "--out", target)
    assert done.returncode == 0, done.stderr
    whole = graded / "late-whole"
    done = grade_batch(graded / "submitted", whole, "--jobs", "2", "--deadlines", policy)
    assert done.returncode == 0, done.stderr[-2000:]
    merged = files(target)
    assert merged.pop("deadlines.toml") == LATE.encode()
    assert merged == files(whole)
    assert "no timestamp.txt, so it counts as on time" in (target / "grades.csv").read_text()


def test_a_regrade_merges_again_into_the_same_folder_and_keeps_the_instructors_files(graded):
    """The deploy examples merge into one fixed folder on every run, where the instructor
    may keep deadlines.toml: a second merge replaces the first one's files (a student folder
    the shards no longer hold goes too) and leaves the instructor's own files alone."""
    parts = [graded / f"part{k}" for k in (1, 2, 3)]
    target = graded / "again"
    target.mkdir()
    (target / "deadlines.toml").write_text("# the instructor's\n")
    assert merge(*parts, "--out", target).returncode == 0
    (target / "students" / "gone").mkdir()
    (target / "grades.csv").write_text("stale\n")
    done = merge(*parts, "--out", target)
    assert done.returncode == 0, done.stderr
    again = files(target)
    assert again.pop("deadlines.toml") == b"# the instructor's\n"
    assert again == files(graded / "whole")
    assert not [path for path in target.iterdir() if ".merging-" in path.name]


def test_merge_refuses_a_folder_it_did_not_write_and_a_shard_folder(graded):
    parts = [graded / f"part{k}" for k in (1, 2, 3)]
    foreign = graded / "foreign"
    foreign.mkdir()
    (foreign / "thesis.tex").write_text("mine\n")
    refused = merge(*parts, "--out", foreign)
    assert refused.returncode == 2 and "'thesis.tex'" in refused.stderr, refused.stderr
    assert sorted(path.name for path in foreign.iterdir()) == ["thesis.tex"]
    inside = merge(*parts, "--out", graded / "part2" / "merged")
    assert inside.returncode == 2 and "shard folder" in inside.stderr, inside.stderr
    assert not (graded / "part2" / "merged").exists()


def test_merge_refuses_a_missing_or_repeated_shard(graded):
    missing = merge(graded / "part1", graded / "part3", "--out", graded / "missing")
    assert missing.returncode == 2 and "shard 2/3 is missing" in missing.stderr
    twice = merge(graded / "part1", graded / "part1", graded / "part2", graded / "part3",
                  "--out", graded / "twice")
    assert twice.returncode == 2 and "appears twice" in twice.stderr


def test_merge_refuses_shards_cut_from_different_classes(graded):
    """A student folder added after shard 1 was graded lands in shard 1 or 3 by its name: a
    shard graded later from the grown class would merge with the others without that
    student's row. Merge names the shard and says what to do."""
    grown = graded / "submitted-grown"
    subprocess.run(["cp", "-r", str(graded / "submitted"), str(grown)], check=True)
    late = next(name for name in (f"late{number}" for number in range(100))
                if shard.shard_of(name, 3) != 2)
    fixtures.place(grown, late, PARSE, fixtures.submission_for(PARSE, "honest"))
    done = grade_batch(grown, graded / "part2-grown", "--jobs", "2", "--shard", "2/3")
    assert done.returncode == 0, done.stderr[-2000:]
    refused = merge(graded / "part1", graded / "part2-grown", graded / "part3", "--out",
                    graded / "refused-grown")
    assert refused.returncode == 2
    assert len(refused.stderr.strip().splitlines()) == 1
    assert "part2-grown was cut from another class than" in refused.stderr
    count = len({student for student, _, _ in CLASS} | {"ivy"})
    assert f"({count + 1} student folders against {count})" in refused.stderr, refused.stderr
    assert not (graded / "refused-grown").exists()


def test_a_hand_edited_class_record_is_a_damaged_manifest(graded):
    """What merge prints of a manifest's class record is a count it checked, never its text."""
    edited = graded / "part2-edited"
    subprocess.run(["cp", "-r", str(graded / "part2"), str(edited)], check=True)
    manifest = json.loads((edited / shard.MANIFEST).read_text())
    manifest["class"]["students"] = "\x1b[2J12"
    (edited / shard.MANIFEST).write_text(json.dumps(manifest))
    refused = merge(graded / "part1", edited, graded / "part3", "--out", graded / "refused-edit")
    assert refused.returncode == 2
    assert "is damaged; grade that shard again" in refused.stderr
    assert "\x1b" not in refused.stderr


def test_a_damaged_table_in_a_shard_is_refused_with_one_sentence(graded):
    """A shard's table cut or edited by hand (here a cell longer than Python's csv reads) stops
    the merge with a sentence that names the file, not a traceback, and writes nothing."""
    damaged = graded / "part2-damaged"
    subprocess.run(["cp", "-r", str(graded / "part2"), str(damaged)], check=True)
    table = damaged / "not-graded.csv"
    table.write_text(table.read_text() + '"' + "x" * 200_000 + '"\n', encoding="utf-8")
    refused = merge(graded / "part1", damaged, graded / "part3", "--out",
                    graded / "refused-table")
    assert refused.returncode == 2, refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1, refused.stderr
    assert "not-graded.csv cannot be read as a table" in refused.stderr
    assert "grade that shard again" in refused.stderr
    assert not (graded / "refused-table").exists()
