"""Grading a class on several machines: a stable partition by student, and the merge.

`grade-batch --shard K/N` grades only the students of shard K of N; `python -m autograder merge
SHARD_DIR ... --out DIR` joins the shards' output folders into the one a single run would have
written. A student's notebooks always stay together, and a student lands in the same shard on
every machine and every run (the partition hashes the student's folder name, never the order
of a listing). Each output folder records how it was graded in `batch.json`; merge refuses
shards graded with different fingerprints (another grader, suites or limits), shards that
saw different classes (students added or removed between their runs), a shard graded twice,
or a set of shards that does not cover 1..N.

Grading itself is left to the engines people already run: a Kubernetes Indexed Job or a Slurm
array runs one shard per task (`--shard auto` reads the index from `JOB_COMPLETION_INDEX` or
`SLURM_ARRAY_TASK_ID`), and one final step merges (see `deploy/`).
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import shutil
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from . import escape

MANIFEST = "batch.json"
# Environment variables that hold a task's index (0-based) on the engines we document.
INDEX_VARIABLES = ("JOB_COMPLETION_INDEX", "SLURM_ARRAY_TASK_ID")


class ShardError(Exception):
    """A shard specification or a set of shards that cannot be used; one sentence."""


@dataclass(frozen=True)
class Shard:
    index: int  # 1-based, as people count: shard 1 of 3
    count: int

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"

    def holds(self, student: str) -> bool:
        """Whether `student` (a folder name under SUBMITTED) is graded in this shard."""
        return shard_of(student, self.count) == self.index


ALL = Shard(1, 1)


def shard_of(student: str, count: int) -> int:
    """The shard (1..count) of a student: stable across machines, runs and Python versions."""
    digest = hashlib.sha256(student.encode("utf-8", "surrogateescape")).digest()
    return int.from_bytes(digest[:8], "big") % count + 1


def parse_shard(text: str, environ: Mapping[str, str] = os.environ) -> Shard:
    """"K/N" (1 <= K <= N), or "auto/N" (or "auto" with N from the engine's variables), where
    K comes from JOB_COMPLETION_INDEX (Kubernetes Indexed Jobs, counted from 0) or
    SLURM_ARRAY_TASK_ID (Slurm arrays, counted from the array's first task)."""
    index_text, _, count_text = text.partition("/")
    if index_text == "auto":
        found = [(name, environ[name]) for name in INDEX_VARIABLES if environ.get(name)]
        if not found:
            raise ShardError("--shard auto needs JOB_COMPLETION_INDEX (Kubernetes Indexed Job) "
                             "or SLURM_ARRAY_TASK_ID (Slurm array) in the environment")
        name, value = found[0]
        if not value.isdigit():
            raise ShardError(f"--shard auto: {name} is {value!r}, not a task index")
        if not count_text:
            count_text = environ.get("SLURM_ARRAY_TASK_COUNT", "")
        index = int(value)
        if name == "SLURM_ARRAY_TASK_ID":  # --array=1-8 and --array=0-14:2 work too
            first, step = environ.get("SLURM_ARRAY_TASK_MIN", "0"), \
                environ.get("SLURM_ARRAY_TASK_STEP", "1")
            if first.isdigit() and step.isdigit() and int(step) > 0 and \
                    (index - int(first)) % int(step) == 0:
                index = (index - int(first)) // int(step)
        index_text = str(index + 1)
        if count_text.isdigit() and not 1 <= int(index_text) <= int(count_text):
            raise ShardError(f"--shard {text}: {name} is {value}, which is task {index_text} of "
                             f"{count_text} counted from the first task; give N as the number "
                             "of tasks (a Kubernetes index and a Slurm array's first task "
                             "count from 0)")
    if not (index_text.isdigit() and count_text.isdigit()):
        raise ShardError(f"--shard {text!r}: write K/N, for example 2/8 (shard 2 of 8), or "
                         "auto/N to read the index from the job engine")
    shard = Shard(int(index_text), int(count_text))
    if not 1 <= shard.index <= shard.count:
        raise ShardError(f"--shard {text}: K must be between 1 and N")
    return shard


def policy_digest(policy: object, overrides: Mapping) -> str:
    """A hash of the late policy and the overrides a batch applied: shards graded with other
    deadlines or overrides would not add up to one class."""
    text = repr((policy, sorted(overrides.items())))
    return hashlib.sha256(text.encode("utf-8", "backslashreplace")).hexdigest()


def class_digest(students: list[str]) -> dict[str, object]:
    """What every shard of one class saw: how many student folders the whole class held, and
    a hash of their names. Shards cut from the class at different times (a student added,
    renamed or removed in between) would drop or repeat that student when merged."""
    digest = hashlib.sha256()
    for student in sorted(students):
        digest.update(student.encode("utf-8", "surrogateescape") + b"\0")
    return {"students": len(students), "digest": digest.hexdigest()}


def write_manifest(out: Path, shard: Shard, fingerprints: Mapping[str, str],
                   students: list[str], policy: str = "",
                   whole: dict[str, object] | None = None,
                   classes: Iterable[str] = ()) -> None:
    """Record how `out` was graded, for merge; `whole` is the `class_digest` of the class the
    shard was cut from (by default, `students` are the whole class), and `classes` the class
    folders it was graded from (`class_folder`), where merge and export never write."""
    from .report import write_atomic

    data = {"shard": str(shard), "fingerprints": dict(sorted(fingerprints.items())),
            "policy": policy, "students": sorted(students),
            "class": whole if whole is not None else class_digest(students),
            "class_folders": sorted(set(classes))}
    write_atomic(Path(out) / MANIFEST, json.dumps(data, indent=1, ensure_ascii=True) + "\n")


def class_folder(submitted: Path) -> str:
    """How a manifest records the class folder a batch read: its real path."""
    return os.path.realpath(submitted)


def class_folders(folder: Path) -> list[str]:
    """The class folders that the output folder `folder` was graded from, as its manifest
    records them; none when it has no readable manifest, or one written before they were
    recorded."""
    try:
        found = json.loads((Path(folder) / MANIFEST).read_text(encoding="utf-8"))
        recorded = found.get("class_folders", []) if isinstance(found, dict) else []
    except (OSError, ValueError):
        return []
    return [path for path in recorded if isinstance(path, str) and os.path.isabs(path)] \
        if isinstance(recorded, list) else []


def holding_class(path: Path, classes: Iterable[str]) -> str:
    """The class folder among `classes` that `path` is, or lies in (through any link); ""."""
    target = os.path.realpath(path)
    return next((folder for folder in classes if target == folder
                 or target.startswith(folder.rstrip(os.sep) + os.sep)), "")


def inside_class(option: str, path: Path, folder: Path | str) -> str:
    """The one sentence that refuses `option` (`--out`) at `path`, in the class `folder`."""
    return (f"{option} {escape.terminal(path)} lies in the class folder "
            f"{escape.terminal(folder)}, where what it writes would be read as a student's "
            "submission (an empty folder there may be a student's who has not submitted yet); "
            "write it beside the class folder")


def _read_manifest(folder: Path) -> dict:
    try:
        data = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
        parse_shard(data["shard"])
        whole = data.get("class", {"students": 0, "digest": ""})
        if not isinstance(data["fingerprints"], dict) or not isinstance(data["students"], list) \
                or not isinstance(whole, dict) or type(whole.get("students")) is not int \
                or not isinstance(whole.get("digest"), str):
            raise TypeError
        return data
    except FileNotFoundError:
        raise ShardError(f"{folder} is not a grade-batch output folder (it has no "
                         f"{MANIFEST})") from None
    except (OSError, ValueError, KeyError, TypeError, ShardError):
        raise ShardError(f"{folder / MANIFEST} is damaged; grade that shard again") from None


def merge(shards: list[Path], out: Path, held: tuple[str, ...] = (), digest: str = "") -> int:
    """Join shard output folders into `out`; return how many students it holds. `held`: the
    names of the deadlines and overrides files in `out`, whose policy_digest is `digest`: the
    shards must have applied exactly those, as grade-batch into `out` would."""
    folders = [Path(folder) for folder in shards]
    if not folders:
        raise ShardError("name at least one shard folder")
    out = Path(out)
    _check_merge_target(out, folders)
    manifests = [_read_manifest(folder) for folder in folders]
    counts = {parse_shard(m["shard"]).count for m in manifests}
    if len(counts) != 1:
        raise ShardError("the shards were cut in different ways ("
                         + ", ".join(sorted({m["shard"] for m in manifests})) + ")")
    count = counts.pop()
    seen: dict[int, Path] = {}
    for folder, manifest in zip(folders, manifests, strict=True):
        index = parse_shard(manifest["shard"]).index
        if index in seen:
            raise ShardError(f"shard {index}/{count} appears twice ({seen[index]} and {folder})")
        seen[index] = folder
    missing = sorted(set(range(1, count + 1)) - set(seen))
    if missing:
        raise ShardError(f"shard {', '.join(f'{k}/{count}' for k in missing)} is missing; "
                         "merge needs every shard")
    first = manifests[0]["fingerprints"]
    for folder, manifest in zip(folders, manifests, strict=True):
        if set(manifest["fingerprints"]) != set(first):
            theirs, ours = sorted(manifest["fingerprints"]), sorted(first)
            raise ShardError(f"{folder} was graded for other notebooks than {folders[0]} "
                             f"({', '.join(theirs) or 'none'} against {', '.join(ours) or 'none'})"
                             "; grade every shard with the same --assignment")
        common = set(first) & set(manifest["fingerprints"])
        if any(first[key] != manifest["fingerprints"][key] for key in common):
            raise ShardError(f"{folder} was graded with a different grader, suites or limits "
                             f"than {folders[0]}; grade every shard with the same version")
    for folder, manifest in zip(folders, manifests, strict=True):
        if manifest.get("class") != manifests[0].get("class"):
            saw, first_saw = (m.get("class") or {} for m in (manifest, manifests[0]))
            counts_said = (f" ({saw.get('students')} student folders against "
                           f"{first_saw.get('students')})"
                           if saw.get("students") != first_saw.get("students") else "")
            raise ShardError(f"{folder} was cut from another class than {folders[0]}"
                             f"{counts_said}: its student folders changed between the shards' "
                             "runs; grade every shard from the same copy of the class")
    policies = {str(m.get("policy", "")) for m in manifests}
    if len(policies) > 1:
        for folder, manifest in zip(folders, manifests, strict=True):
            if str(manifest.get("policy", "")) != str(manifests[0].get("policy", "")):
                raise ShardError(f"{folder} was graded with other deadlines or overrides than "
                                 f"{folders[0]}; give every shard the same --deadlines and "
                                 "--overrides files")
    if held and str(manifests[0].get("policy", "")) != digest:
        names = sorted(held)
        flags = " ".join(f"--{name.partition('.')[0]} {out / name}" for name in names)
        raise ShardError(f"{out} holds {' and '.join(names)}, which the shards were not graded "
                         f"with, so their late penalties and overrides would be missing: grade "
                         f"every shard with {flags}, or move {'them' if len(names) > 1 else 'it'}"
                         f" out of {out}")
    created = not out.exists()
    out.mkdir(parents=True, exist_ok=True)
    final, out = out, Path(tempfile.mkdtemp(prefix=f".{out.name}.merging-", dir=out))
    try:
        count = _merge_into(folders, manifests, out)
        _replace_entries(out, final)
    except BaseException:
        shutil.rmtree(out, ignore_errors=True)
        if created:  # a refused merge leaves no folder of its own behind
            shutil.rmtree(final, ignore_errors=True)
        raise
    finally:
        shutil.rmtree(out, ignore_errors=True)
    return count


# What an instructor keeps in the gradebook folder (docs/class.md, What merge writes), which a
# merge into it leaves alone.
INPUTS = {"deadlines.toml", "overrides.csv", "roster.csv"}


def _check_merge_target(out: Path, folders: list[Path]) -> None:
    """`merge --out` may be a new or empty folder, one that holds only the instructor's own
    files (INPUTS), or an earlier output of grade-batch or merge (it has MANIFEST), whose
    merged files are then replaced; never a shard folder, nor a folder inside one."""
    if out.exists() and not out.is_dir():
        raise ShardError(f"{out} is not a folder; merge into a folder")
    classes = holding_class(out, [path for folder in folders for path in class_folders(folder)])
    if classes:
        raise ShardError(inside_class("--out", out, classes))
    target = out.resolve()
    for folder in folders:
        shard = folder.resolve()
        if target == shard or shard in target.parents:
            raise ShardError(f"{out} is the shard folder {folder} or inside it; merge into a "
                             "folder of its own")
    if not out.exists():
        return
    names = {entry.name for entry in out.iterdir()}
    if names and MANIFEST not in names and not names <= INPUTS:
        raise ShardError(f"{out} holds files that no grade-batch or merge wrote (such as "
                         f"{sorted(names - INPUTS)[0]!r}); merge into a new folder, or into "
                         "the folder of an earlier merge")


def _replace_entries(built: Path, out: Path) -> None:
    """Move every entry of `built` into `out`, replacing an entry of the same name (an earlier
    merge's); the batch manifest last, so a folder with a manifest is always a whole merge."""
    entries = sorted(built.iterdir(), key=lambda entry: entry.name == MANIFEST)
    (out / MANIFEST).unlink(missing_ok=True)
    for entry in entries:
        target = out / entry.name
        if entry.name in INPUTS and target.exists():
            continue  # the instructor's own file is never replaced by a shard's copy
        if target.is_dir() and not target.is_symlink():
            shutil.rmtree(target)
        elif target.exists() or target.is_symlink():
            target.unlink()
        os.replace(entry, target)


def _merge_into(folders: list[Path], manifests: list[dict], out: Path) -> int:
    tables: dict[str, list[dict[str, str]]] = {}
    headers: dict[str, list[str]] = {}
    for folder in folders:
        for entry in sorted(folder.iterdir()):
            if entry.name == MANIFEST or entry.is_symlink():
                continue
            if entry.is_file() and entry.suffix == ".csv":
                try:
                    with open(entry, newline="", encoding="utf-8") as stream:
                        reader = csv.DictReader(stream)
                        names = headers.setdefault(entry.name, [])
                        names += [name for name in reader.fieldnames or [] if name not in names]
                        tables.setdefault(entry.name, []).extend(reader)
                except (csv.Error, UnicodeDecodeError) as error:  # a hand-edited or cut table
                    raise ShardError(f"{entry} cannot be read as a table "
                                     f"({type(error).__name__}); grade that shard again") from None
            elif entry.is_dir():
                shutil.copytree(entry, out / entry.name, symlinks=True, dirs_exist_ok=True)
            elif entry.is_file() and not (out / entry.name).exists():
                shutil.copy2(entry, out / entry.name)
    from .report import write_atomic

    for name, rows in tables.items():
        # Every table of a batch is sorted by its first cells as written, and a student's rows
        # all come from one shard: a stable sort by student puts them back in one run's order.
        rows.sort(key=lambda row: row.get(headers[name][0]) or "")
        buffer = io.StringIO()
        writer = csv.DictWriter(buffer, fieldnames=headers[name], lineterminator="\n",
                                quoting=csv.QUOTE_ALL)
        writer.writeheader()
        writer.writerows(rows)
        write_atomic(out / name, buffer.getvalue())
    students = sorted({s for manifest in manifests for s in manifest["students"]})
    fingerprints = {k: v for m in manifests for k, v in m["fingerprints"].items()}
    write_manifest(out, ALL, fingerprints, students, str(manifests[0].get("policy", "")),
                   manifests[0].get("class"),
                   [path for folder in folders for path in class_folders(folder)])
    return len(students)
