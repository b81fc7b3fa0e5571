"""Find a class's notebooks as they really arrive, and say what was not graded and why.

nbgrader's layout is `SUBMITTED/<student>/<assignment>/<notebook>.ipynb`. Real uploads differ:
a notebook directly in the student's folder, an extra folder level from a zip, `.py` or
`.html` exports, `Untitled.ipynb` or `01_parse_cron_field (1).ipynb`, `Schedules/` for
`schedules/`, an empty folder, a folder name in Latin-1 from a Windows zip, or a symbolic link
to a classmate's folder. `discover` walks the class without following any symbolic link and
returns the notebooks to grade (at most one per student and exercise, chosen by `choose`) and
one `Skipped` entry, with a reason, for everything else it found.

Which file counts when several answer one exercise (the rule docs/class.md states):
1. every readable notebook of the student recognised as the exercise (by its name, or else by
   its graded cells) is a candidate;
2. a candidate "has work" when one of its answer cells differs from the released student copy;
3. if any candidate has work, only those with work compete; among the competitors the file
   named exactly like the exercise (`01_parse_cron_field.ipynb`) counts, else the first by name.
So the canonical file counts unless it is the untouched release and a copy has work.
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import json
import os
import re
import stat
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from . import escape
from .rubric import ASSIGNMENTS, EXERCISES, Exercise, exercise_for

LAYOUT = "SUBMITTED/<student>/<assignment>/<notebook>.ipynb"
# Left by operating systems and Jupyter, never a student's answer: ignored without a note in
# a student's folder. Directly in the class folder only the hidden ones are (`discover`).
IGNORED = {".ipynb_checkpoints", "__MACOSX", ".DS_Store", "Thumbs.db", "desktop.ini",
           "timestamp.txt", "__pycache__"}
MAX_ENTRIES = 2000  # files and folders looked at in one student's folder
MAX_DEPTH = 6
FOLDER_BYTES = 200  # the longest student folder under DIR/students/ written as the name itself
EXPORTS = {".py": "a Python script export", ".html": "an HTML export", ".pdf": "a PDF export",
           ".md": "a Markdown export", ".txt": "a text file", ".zip": "a zip archive"}
COPY_SUFFIX = re.compile(r"(\s*\(\d+\)|-copy\d*|\s+copy(\s*\d+)?)$", re.IGNORECASE)


class LayoutError(Exception):
    """The folder is not a class in nbgrader's layout; the message says what was expected."""


@dataclass(frozen=True)
class Submission:
    """One notebook file to grade for one student and exercise."""

    student: str  # the student's folder name as text (see `readable_name`)
    assignment: str  # the rubric's assignment name, whatever the folder's case
    path: Path  # the file on disk
    shown: str = ""  # student/folder/file as text, for people
    exercise: Exercise | None = None
    within: Path | None = None  # the student's folder: the file's real path lies inside it
    folder: str = ""  # the student's folder under DIR/students/ ("": the name itself)

    @property
    def key(self) -> str:
        return self.shown or f"{self.student}/{self.assignment}/{self.path.name}"

    def saved_result(self, out: Path) -> Path:
        """Where this notebook's result is kept between runs, named by a hash so that no
        notebook name is too long for the file system."""
        name = hashlib.sha256(os.fsencode(self.path.name)).hexdigest()[:32]
        return Path(out) / "students" / (self.folder or self.student) / ".results" / \
            self.assignment / f"{name}.json"


@dataclass(frozen=True)
class Skipped:
    """Something found in the class folder that was not graded (or was graded and flagged)."""

    student: str  # "" for a file directly in SUBMITTED
    assignment: str  # the rubric's assignment, "" when unknown
    notebook: str  # the exercise it seems to answer, "" when unknown
    file: str  # where it is, as text
    reason: str
    tampering: bool = False  # the instructor should hear of it (flags.csv): a symbolic link


@dataclass
class Discovery:
    students: list[str]
    assignments: tuple[str, ...]  # the assignments graded, in rubric order
    submissions: list[Submission]  # one per (student, exercise) at most
    skipped: list[Skipped] = field(default_factory=list)  # found and not graded
    flagged: list[Skipped] = field(default_factory=list)  # graded, but the instructor should look
    chosen: dict[Submission, str] = field(default_factory=dict)  # why it counted, when contested
    folders: dict[str, str] = field(default_factory=dict)  # output folder, when not the name
    alike: dict[str, tuple[str, ...]] = field(default_factory=dict)  # `look_alikes`

    def folder(self, student: str) -> str:
        """The student's folder under DIR/students/ (`output_folders`)."""
        return self.folders.get(student, student)

    @property
    def exercises(self) -> list[Exercise]:
        return [e for e in EXERCISES if e.assignment in self.assignments]

    def notes_for(self, student: str, notebook: str,
                  index: dict[str, list[Skipped]] | None = None) -> list[str]:
        """Why a student's notebook row looks as it does: entries that name it, then the
        student's entries that name no exercise (at most NOTES_SHOWN of each, then how many
        more, so that an upload of thousands of stray files or exports does not put them all
        in one gradebook cell). Copies that were not counted are left to the note of `chosen`,
        which names them. `index` is `by_student()`, built once for a whole class."""
        mine = (index if index is not None else self.by_student()).get(student, [])
        named = summed_up([_note(s) for s in mine if s.notebook == notebook
                           and not s.reason.startswith(NOT_COUNTED)],
                          f"files named like {notebook} that were not graded")
        other = summed_up([_note(s) for s in mine if not s.notebook],
                          "files or folders that were not graded")
        return ([alike_note(student)] if student in self.alike else []) + named + other

    def by_student(self) -> dict[str, list[Skipped]]:
        """Every skipped and flagged entry, by student, in the order found."""
        index: dict[str, list[Skipped]] = {}
        for entry in self.skipped + self.flagged:
            index.setdefault(entry.student, []).append(entry)
        return index


NOTES_SHOWN = 10  # files named in one note or list of notes of a gradebook row
NOT_COUNTED = "not counted: "  # the reason of a copy that another file of its exercise beat


def summed_up(names: list[str], more_of: str) -> list[str]:
    """At most NOTES_SHOWN of `names`, the last saying how many more (`more_of`: what they
    are): one student's folder may hold MAX_ENTRIES files, and the gradebook cell that lists
    them must stay one a spreadsheet and a CSV reader take whole."""
    if len(names) <= NOTES_SHOWN:
        return names
    return names[:NOTES_SHOWN - 1] + [f"and {len(names) - NOTES_SHOWN + 1:,} more {more_of}"]


def _note(entry: Skipped) -> str:
    return f"{entry.file}: {entry.reason}" if entry.file else entry.reason


def alike_note(student: str) -> str:
    """The note on each gradebook row of a student whose name reads like another's: their
    own name's code points, which tell the rows apart, and never the other student's name
    (the note reaches the student's report)."""
    return (f"this folder name ({_spelled(student)}) reads like another student's; graded as "
            "a student of its own (flags.csv names both)")


def alike_flag(student: str, others: tuple[str, ...]) -> str:
    """The line of flags.csv for a student whose name reads like `others`'."""
    return (f"the folder name ({_spelled(student)}) reads like "
            + ", ".join(escape.code_points(other) for other in others)
            + ", another student's: graded as students of their own; check that each row "
            "is the right student's")


def _spelled(name: str) -> str:
    spelled = escape.code_points(name)
    return spelled if spelled == name else f"{spelled} in code points"


def readable_name(name: str) -> str:
    """A file or folder name as text. Names that are not UTF-8 (a Latin-1 or Windows-1252 name
    from a Windows zip) arrive from the file system with surrogate escapes; they are decoded
    as Windows-1252 (Latin-1 for the bytes it leaves undefined)."""
    raw = os.fsencode(name)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        try:
            return raw.decode("cp1252")
        except UnicodeDecodeError:
            return raw.decode("latin-1")


def is_utf8(name: str) -> bool:
    try:
        os.fsencode(name).decode("utf-8")
        return True
    except UnicodeDecodeError:
        return False


def student_names(names: list[str]) -> dict[str, str]:
    """A name of its own for each student folder name, never another folder's: a UTF-8 name is
    itself; any other reads as `readable_name` does or, when that reads like another folder
    (Windows-1252 reads the bytes C2 80 FF as `Â€ÿ`, a UTF-8 name that may sit beside them),
    with its undecodable bytes as \\x.. escapes, numbered when even that is taken."""
    taken = {name for name in names if is_utf8(name)}
    shown = {name: name for name in taken}
    for name in sorted(set(names) - taken):
        escaped = os.fsencode(name).decode("utf-8", "backslashreplace")
        tries = itertools.chain((readable_name(name), escaped),
                                (f"{escaped} ({number})" for number in itertools.count(2)))
        shown[name] = next(candidate for candidate in tries if candidate not in taken)
        taken.add(shown[name])
    return shown


def alike_key(name: str) -> str:
    """What a name reads as to a disk that ignores case or Unicode normalisation (`Ada` and
    `ada` on macOS or Windows, `José` with its accent composed or not) and to a person
    (fullwidth `ａｄａ` and `ada`; `ada` with a character drawn as nothing in it, such as a
    variation selector, as UTS #39's skeleton drops them; `ada` with white space or a blank
    such as the Braille blank at an end, or two spaces for one inside): Unicode's
    compatibility caseless match (NFKD of the case folded NFKD of the case folded NFD; folding
    case can undo a normal form), without the default-ignorable code points, the characters
    drawn as a blank (`escape.BLANK`) as spaces, and white space as one space between words.
    Names with one key read alike. Letters of other scripts that look Latin (Cyrillic `а`)
    keep keys of their own here: `confusable_key` tells those."""
    folded = unicodedata.normalize("NFD", name).casefold()
    key = unicodedata.normalize("NFKD", unicodedata.normalize("NFKD", folded).casefold())
    return " ".join(escape.BLANK.sub(" ", escape.DEFAULT_IGNORABLE.sub("", key)).split())


def confusable_key(name: str) -> str:
    """What a name reads as to the eye whatever the script of its letters: Unicode's skeleton
    of it (UTS #39: each character of its NFD replaced by the one that Unicode's confusables
    table says it looks like, so Cyrillic `а` in `аda` reads as Latin `a`, and `m` as `rn`),
    folded as `alike_key` folds (the Greek capital `Ρ` of `Ρeter` reads as `p`). Names with
    one key are confusable: a disk keeps them apart, a person may not."""
    decomposed = unicodedata.normalize("NFD", name)
    return alike_key(unicodedata.normalize("NFD", "".join(map(_prototype, decomposed))))


# Two names read alike when one of these keys is the same for both.
ALIKE_KEYS = (alike_key, confusable_key)


@functools.cache
def _confusables() -> dict[str, list[dict[str, str]]]:
    """Unicode's confusables table as confusable-homoglyphs ships it: its data file, which maps
    each character to those drawn like it (`{"c": text, "n": name}`), read on first use. Read
    directly, because the package's own modules import urllib.request (for their updates to
    the table) and with it http and email: three times what reading the table costs, at
    every start of a batch."""
    import confusable_homoglyphs

    table = Path(confusable_homoglyphs.__file__).parent / "confusables.json"
    return json.loads(table.read_text(encoding="utf-8"))


@functools.lru_cache(maxsize=8192)
def _homoglyphs(text: str) -> tuple[str, ...]:
    """What Unicode's confusables table pairs `text` with (what the package's
    `is_confusable(text, greedy=True)` finds for one character): for a character the table
    maps, its prototype; for a prototype, every character mapped to it. A sequence (`rn`) is
    only ever a prototype."""
    found = _confusables().get(text, []) if len(text) == 1 else []
    return tuple(glyph["c"] for glyph in found)


@functools.lru_cache(maxsize=8192)
def _prototype(char: str, within: bool = False) -> str:
    """The one text that stands for every character that looks like `char` (its prototype in
    the table): itself when nothing looks like it or when it is the prototype of several; the
    prototype it maps to, whose characters are prototypes themselves (`within`); and of two
    characters that only look like each other, the smaller, as the table does not say which
    of the two is mapped."""
    glyphs = _homoglyphs(char)
    if len(glyphs) != 1:
        return char
    (other,) = glyphs
    if len(other) > 1 or len(_homoglyphs(other)) > 1:  # `char` is mapped to `other`
        return other if within else "".join(_prototype(part, True) for part in other)
    return min(char, other)


def look_alikes(students: Iterable[str]) -> dict[str, tuple[str, ...]]:
    """Each student whose name reads like other students' names (one of `ALIKE_KEYS`, and so
    on: `Ada` reads like `ada`, which reads like `аda` with a Cyrillic `а`), with those names.
    They are graded as the students they are, never merged (both may be real); the gradebook
    flags them, so the instructor can tell their rows apart."""
    names = sorted(set(students))
    groups = {name: [name] for name in names}
    for key in ALIKE_KEYS:
        first: dict[str, str] = {}
        for name in names:
            other = first.setdefault(key(name), name)
            if groups[other] is not groups[name]:
                merged = sorted(groups[other] + groups[name])
                for member in merged:
                    groups[member] = merged
    return {name: tuple(other for other in groups[name] if other != name)
            for name in names if len(groups[name]) > 1}


@dataclass(frozen=True)
class NameMatch:
    """Whom a name that a person wrote (in overrides.csv, deadlines.toml, a roster) means
    among the students of a class (`StudentNames.match`). Each field is sorted, and each
    holds the one before it: a name in another normal form reads alike too."""

    exact: tuple[str, ...] = ()
    """The students it names exactly, in a way one of them is written; two when it is one's
    folder name and how grades.csv shows another's (`'-ada` beside -ada)."""
    other_form: tuple[str, ...] = ()
    """The students it names in some Unicode normal form (`José` typed as one letter for the
    folder a Mac's zip holds as `Jose` and U+0301): the same text, which may be meant."""
    alike: tuple[str, ...] = ()
    """The students it reads like (`ALIKE_KEYS`: `Ada` for ada, fullwidth `ａｄａ`, `аda` with
    a Cyrillic `а`), who may be other students than the one meant: never matched by a guess,
    only named in a hint."""


class StudentNames:
    """The students of a class, each under the ways a person may write them (the folder name,
    the form grades.csv shows), to look up names from an instructor's file. One notion of a
    name "in another form" (NFC) and of "alike" (`ALIKE_KEYS`) serves overrides, extensions
    and an export's roster."""

    def __init__(self, spellings: Iterable[tuple[str, str]]) -> None:
        """`spellings`: (a way a student may be written, the student)."""
        self._indexes: tuple[dict[str, set[str]], ...] = tuple({} for _ in _KEYS)
        for spelling, student in spellings:
            for index, key in zip(self._indexes, _KEYS, strict=True):
                index.setdefault(key(spelling), set()).add(student)

    def match(self, *written: str) -> NameMatch:
        """Whom a name means, given as each way it may stand for a student (a roster's name
        as a folder name, and as grades.csv would show it)."""
        found = [{student for name in written for student in index.get(key(name), ())}
                 for index, key in zip(self._indexes, _KEYS, strict=True)]
        exact, other_form, *alike = found
        return NameMatch(tuple(sorted(exact)), tuple(sorted(other_form)),
                         tuple(sorted(set().union(*alike))))


def _same(name: str) -> str:
    return name


def _normal_form(name: str) -> str:
    return unicodedata.normalize("NFC", name)


_KEYS = (_same, _normal_form, *ALIKE_KEYS)  # NameMatch's fields: the last ones make `alike`


def other_form_note(what: str, name: str, student: str) -> str:
    """The note for a name applied to the student it names in another normal form."""
    return (f"note: {what} names {escape.unmistakable(name)}, which is the student "
            f"{escape.unmistakable(student)} in another Unicode normal form (the same text, "
            "its accents composed otherwise); applied to that student")


def other_forms_warning(what: str, name: str, students: Iterable[str], outcome: str) -> str:
    """The warning for a name that is several students' in other normal forms: it goes to
    none of them (`outcome` says what came of it)."""
    return (f"warning: {what} names {escape.unmistakable(name)}, which is the same text as "
            f"each of the students {', '.join(escape.unmistakable(s) for s in students)} in "
            f"other Unicode normal forms; {outcome}: copy the name of the one you mean from "
            "grades.csv")


def reads_like_hint(alike: Iterable[str], whose: str = "") -> str:
    """The end of a warning about a name that matches no student but reads like `alike`'s
    names (nothing when there are none); `whose` says where they stand ("the roster's ")."""
    shown = ", ".join(whose + escape.unmistakable(name) for name in alike)
    return (f"; it reads like {shown} (a name that differs in case, in a letter's form or in "
            "a letter's script may be another student's: write the folder name exactly)") \
        if shown else ""


# What Windows refuses in a folder name, and with it the FAT and exFAT disks of memory sticks
# on any system: these characters; a dot or a space at the end, which it drops (`ada.` and
# `ada ` are the folder `ada` there); and the names of its devices (`CON`, `nul.txt`).
_NOT_ON_WINDOWS = re.compile(r'[\x00-\x1f"*/:<>?\\|]')
_WINDOWS_DEVICE = re.compile(r"(con|prn|aux|nul|com[0-9\u00b9\u00b2\u00b3]"
                             r"|lpt[0-9\u00b9\u00b2\u00b3])(\..*)?", re.IGNORECASE)


def kept_on_every_disk(name: str) -> bool:
    """Whether a folder of this name is that name on every disk a gradebook may be written to:
    at most FOLDER_BYTES bytes (a name read as Windows-1252 can grow to three times its bytes,
    past the 255 a file system allows), and a name Windows keeps as it is."""
    return (len(name.encode("utf-8", "surrogatepass")) <= FOLDER_BYTES
            and not _NOT_ON_WINDOWS.search(name) and not name.endswith((".", " "))
            and not _WINDOWS_DEVICE.fullmatch(name))


def output_folders(students: Iterable[str]) -> dict[str, str]:
    """The folder under DIR/students/ of each student in a class, never another student's,
    on any disk: the name itself, unless a disk would not keep it (`kept_on_every_disk`: too
    long, or `ada.` beside `ada`, one folder on Windows and on memory sticks) or it reads
    like another student's name (`alike_key`: `Ada` and `ada` are one folder on macOS or
    Windows; `confusable_key`: `аda` with a Cyrillic `а` is not, but the instructor who opens
    it may take it for ada's). Such a name gets a folder of its first characters (those
    Windows refuses as `_`) and a hash of the whole name, and a number when even that is
    taken. It depends on the whole class, which every shard discovers, so shards name a
    student's folder alike."""
    def hashed(name: str) -> str:
        data = name.encode("utf-8", "surrogatepass")
        start = _NOT_ON_WINDOWS.sub("_", data[:FOLDER_BYTES - 13].decode("utf-8", "ignore"))
        folder = f"{start}-{hashlib.sha256(data).hexdigest()[:12]}"
        return f"_{folder}" if _WINDOWS_DEVICE.fullmatch(folder) else folder  # `nul.-...`

    names = sorted(set(students))
    base = {name: name if kept_on_every_disk(name) else hashed(name) for name in names}
    alike = look_alikes(names)  # `ada` beside `ada ` too, which a disk would not keep
    wanted = {name: hashed(name) if name in alike else base[name] for name in names}
    folders: dict[str, str] = {}
    taken: tuple[set[str], ...] = tuple(set() for _ in ALIKE_KEYS)
    # Names kept as they are come first: only a made-up folder ever gets a number.
    for name in sorted(names, key=lambda name: (wanted[name] != name, name)):
        folder, number = wanted[name], 1
        while any(key(folder) in seen for key, seen in zip(ALIKE_KEYS, taken, strict=True)):
            number += 1
            folder = f"{wanted[name]} ({number})"
        for key, seen in zip(ALIKE_KEYS, taken, strict=True):
            seen.add(key(folder))
        folders[name] = folder
    return folders


def match_assignment(name: str) -> str | None:
    """The rubric's assignment for a folder name, ignoring case and surrounding spaces."""
    wanted = readable_name(name).strip().casefold()
    return next((a for a in ASSIGNMENTS if a.casefold() == wanted), None)


def exercise_by_name(name: str) -> Exercise | None:
    """The exercise a file name points to, allowing for Jupyter's and browsers' copies:
    `01_parse_cron_field (1).ipynb`, `01_parse_cron_field-Copy1.ipynb`, any case."""
    stem = readable_name(name).removesuffix(".ipynb").strip()
    while True:
        shorter = COPY_SUFFIX.sub("", stem)
        if shorter == stem:
            break
        stem = shorter
    return next((e for e in EXERCISES if e.notebook.casefold() == stem.casefold()), None)


# Discovery reads a notebook not named like its exercise to recognise it by its graded cells,
# and reads copies that compete for one exercise to find the one with work in it. A notebook of
# 20 MiB costs the child process that reads it about 2.4 s of CPU, and one student's folder may
# hold MAX_ENTRIES files: of one student's notebooks, discovery reads at most this many bytes.
# A notebook past it is recognised by its name alone, or listed as not read.
MAX_READ_BYTES = 256 * 2**20  # the seven notebooks at their 20 MiB limit, and copies


class ReadBudget:
    """What discovery may still read of one student's notebooks (MAX_READ_BYTES, by `lstat`'s
    size, before a byte is read), and the files it was not allowed to read."""

    def __init__(self) -> None:
        self.left = MAX_READ_BYTES
        self.unread: set[Path] = set()

    def take(self, path: Path) -> bool:
        """Whether `path` may be read; its size is taken from what is left when it may. A file
        larger than a notebook may be is refused before a byte of it is read, so it costs
        nothing."""
        from .notebook import MAX_NOTEBOOK_BYTES

        try:
            size = os.lstat(path).st_size
        except OSError:
            return True  # reading it fails on its own, and says why
        if size > MAX_NOTEBOOK_BYTES:
            return True
        if size > self.left:
            self.unread.add(path)
            return False
        self.left -= size
        return True


def not_read(whose: str) -> str:
    """Why a notebook past the read budget of `whose` notebooks ("your", "this student's") was
    not graded, and what to do."""
    return (f"not read: its name matches no exercise, and recognising it by its graded cells "
            f"would read more than {MAX_READ_BYTES // 2**20} MiB of {whose} notebooks; name it "
            "like its exercise (01_parse_cron_field.ipynb) to grade it")


def _answer_name(path: Path) -> str:
    """The name to recognise an exercise by: a notebook's own name, or the name of the notebook
    an export was made from (`01_parse_cron_field.py`, `.html`, `.pdf`); "" for anything else."""
    if path.suffix.lower() == ".ipynb":
        return path.name
    return path.stem if path.suffix.lower() in EXPORTS else ""


def _read(path: Path) -> dict | None:
    """A notebook document read by this trusted process, or None when it is not one."""
    from .notebook import NotebookError, read_notebook

    try:
        return read_notebook(path)
    except (NotebookError, OSError, ValueError, RecursionError):
        return None


def recognise(path: Path, budget: ReadBudget | None = None) -> tuple[Exercise | None, dict | None]:
    """The exercise a notebook file answers, and its document when it was read (a file named
    exactly like an exercise is not read here: most of a class is, and grading reads it; nor
    is a file the student's `budget` has no room for)."""
    from .grading import recognise as by_cells

    exact = exercise_for(path.name)
    if exact is not None:
        return exact, None
    if budget is not None and not budget.take(path):
        return exercise_by_name(path.name), None
    document = _read(path)
    if document is not None:
        found = by_cells(path, document)
        if found is not None:
            return found, document
    return exercise_by_name(path.name), document


def has_work(document: dict | None, exercise: Exercise) -> bool:
    """True when one of the document's answer cells differs from the released student copy
    (without a released copy to compare with, every readable notebook has work)."""
    from .reference import nbgrader_meta

    if document is None:
        return False
    released = _released_answers(exercise)
    if released is None:
        return True
    for cell in document.get("cells", []):
        if not isinstance(cell, dict) or not isinstance(cell.get("metadata"), dict):
            continue
        meta = nbgrader_meta(cell)
        grade_id = meta.get("grade_id") if isinstance(meta, dict) else None
        if isinstance(grade_id, str) and grade_id in released:  # a list is no id (unhashable)
            source = cell.get("source", "")
            source = "".join(map(str, source)) if isinstance(source, list) else str(source)
            if source.strip() != released[grade_id]:
                return True
    return False


_RELEASED: dict[Exercise, dict[str, str] | None] = {}


def _released_answers(exercise: Exercise) -> dict[str, str] | None:
    if exercise not in _RELEASED:
        from .reference import REPOSITORY, is_answer_cell, nbgrader_meta, plain_cells

        path = REPOSITORY / "notebooks" / exercise.path
        try:
            _RELEASED[exercise] = {nbgrader_meta(cell)["grade_id"]: cell["source"].strip()
                                   for cell in plain_cells(path) if is_answer_cell(cell)}
        except (OSError, ValueError, KeyError, TypeError):
            _RELEASED[exercise] = None
    return _RELEASED[exercise]


@dataclass
class _Candidate:
    """A notebook that may count for its exercise. What its document says is kept as
    `has_work`'s answer, never the document itself: a class's folders may hold thousands of
    notebooks, each with up to 1 MiB of code, and all are candidates at once."""

    path: Path
    shown: str
    assignment_folder: str  # the folder's own name
    exercise: Exercise
    links: int
    budget: ReadBudget | None = None  # what may still be read of the student's notebooks
    _work: bool | None = None  # None: the file has not been read yet

    @classmethod
    def of(cls, path: Path, shown: str, assignment_folder: str, exercise: Exercise,
           document: dict | None, links: int, budget: ReadBudget | None = None) -> _Candidate:
        """A candidate whose `document` (None when the file was not read) was just read."""
        return cls(path, shown, assignment_folder, exercise, links, budget,
                   None if document is None else has_work(document, exercise))

    @property
    def work(self) -> bool:
        """Read only when several files compete for one exercise; a file past the student's
        read budget counts as one without work."""
        if self._work is None:
            readable = self.budget is None or (self.path not in self.budget.unread
                                               and self.budget.take(self.path))
            self._work = readable and has_work(_read(self.path), self.exercise)
        return self._work


def choose(candidates: list[_Candidate]) -> tuple[_Candidate, str]:
    """The candidate that counts for one exercise (the module's rule) and why, in words."""
    if len(candidates) == 1:
        return candidates[0], ""
    any_work = any(c.work for c in candidates)

    def rank(c: _Candidate) -> tuple:
        canonical = c.path.name == f"{c.exercise.notebook}.ipynb"
        return (any_work and not c.work, not canonical,
                c.assignment_folder != c.exercise.assignment, c.shown)

    best = min(candidates, key=rank)
    others = ", ".join(summed_up([c.shown for c in candidates if c is not best], "files"))
    canonical = best.path.name == f"{best.exercise.notebook}.ipynb"
    if canonical and (best.work or not any_work):
        why = "it is named exactly like the exercise"
    elif not canonical and any_work:
        why = ("the file named like the exercise is missing or the untouched release, and this "
               "is the first file by name with work in it")
    else:
        why = "it is the first by name (none is named exactly like the exercise)"
    return best, f"{best.shown} counted for {best.exercise.notebook} because {why}; " \
                 f"not counted: {others}"


def _is_link(path: Path) -> bool:
    try:
        return stat.S_ISLNK(os.lstat(path).st_mode)
    except OSError:
        return False


def _inside(path: Path, folder: Path) -> bool:
    real, home = os.path.realpath(path), os.path.realpath(folder)
    return real.startswith(home + os.sep)


def _check_top(submitted: Path) -> None:
    """Refuse, with the expected layout, a folder that is one student's or one assignment's."""
    hint = (f"grade-batch expects {LAYOUT}: point it at the folder that holds one folder per "
            "student")
    entries = list(submitted.iterdir())
    folders = [e for e in entries if e.is_dir() and not _is_link(e) and not e.name.startswith(".")
               and e.name not in IGNORED]
    if not folders and any(e.suffix == ".ipynb" for e in entries):
        raise LayoutError(
            f"{submitted} holds notebooks directly, like one student's assignment folder; "
            f"{hint}, or grade one student with `python -m autograder grade "
            f"{submitted}/*.ipynb --results FILE`")
    # One student's folder holds only assignment folders. A class may have a student whose
    # folder is named like an assignment: that student is graded (or told what is misplaced),
    # and the class is not refused for it.
    if folders and all(match_assignment(entry.name) for entry in folders):
        for entry in sorted(folders):
            if any(child.suffix == ".ipynb" for child in entry.iterdir()):
                name = escape.terminal(readable_name(entry.name))
                raise LayoutError(
                    f"{submitted} looks like one student's folder (it holds {name}/ with "
                    f"notebooks); {hint}, or grade one student with `python -m autograder "
                    f"grade {submitted}/{name}/*.ipynb --results FILE`")


def _walk(folder: Path, depth: int = 0, budget: list[int] | None = None):
    """Every file under `folder` as (path, parts, is_link), never following a link."""
    budget = budget if budget is not None else [MAX_ENTRIES]
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError:
        return
    for entry in entries:
        if entry.name in IGNORED or entry.name.startswith("."):
            continue
        budget[0] -= 1
        if budget[0] < 0:
            yield Path(entry.path), "too-many", False
            return
        link = entry.is_symlink()
        if not link and entry.is_dir(follow_symlinks=False):
            if depth >= MAX_DEPTH:
                yield Path(entry.path), "too-deep", False
                continue
            yield from _walk(Path(entry.path), depth + 1, budget)
        else:
            yield Path(entry.path), "file", link


def discover(submitted: Path, assignment: str | None = None,
             walked: Callable[[list[tuple[str, Path]]], object] | None = None) -> Discovery:
    """The class in `submitted`: what to grade, and everything else with a reason.

    `assignment` grades only that assignment; by default every assignment that at least one
    student submitted a notebook for is graded. `walked` is called with each notebook to grade
    (student, file), in the order of the submissions, as soon as the folders are walked: before
    the students' names are compared, which loads Unicode's confusables table."""
    submitted = Path(submitted)
    if assignment is not None and match_assignment(assignment) is None:
        raise LayoutError(f"--assignment {assignment} is not an assignment of the course "
                          f"(expected one of {', '.join(ASSIGNMENTS)})")
    only = match_assignment(assignment) if assignment else None
    _check_top(submitted)
    students: dict[str, Path] = {}
    skipped: list[Skipped] = []
    flagged: list[Skipped] = []
    candidates: dict[tuple[str, Exercise], list[_Candidate]] = {}

    entries = [entry for entry in sorted(submitted.iterdir())  # Jupyter's, the Finder's
               if not (entry.name in IGNORED and entry.name.startswith("."))]
    for entry in [entry for entry in entries if entry.name.startswith(".")]:
        entries.remove(entry)
        if entry.is_dir():  # a hidden file (.gitignore) is nobody's work
            skipped.append(Skipped("", "", "", f"{readable_name(entry.name)}/",
                                   "a hidden folder (its name starts with '.'), not read as a "
                                   "student's; nothing in it was graded: rename it without "
                                   "the '.' to grade it"))
    # A folder named like what systems leave behind (__MACOSX/ of a zip made on a Mac) is a
    # student's when it holds a notebook (a student id may be any name); otherwise it is
    # listed, never passed over in silence.
    for entry in [entry for entry in entries if entry.name in IGNORED]:
        if entry.is_dir() and not _is_link(entry) and not any(
                kind == "file" and path.suffix.lower() == ".ipynb"
                for path, kind, _ in _walk(entry, 0, [MAX_ENTRIES])):
            entries.remove(entry)
            skipped.append(Skipped("", "", "", f"{readable_name(entry.name)}/",
                                   "a folder that operating systems and Jupyter leave behind, "
                                   "holding no notebook; not read as a student's"))
    names = student_names([entry.name for entry in entries])
    for entry in entries:
        name = entry.name
        student = names[name]
        if _is_link(entry):
            students[student] = entry
            skipped.append(Skipped(student, "", "", "", f"the student folder {student}/ is a "
                                   "symbolic link; nothing in it was graded (a link can point at "
                                   "another student's work)", tampering=True))
            continue
        if not entry.is_dir():
            skipped.append(Skipped("", "", "", student, f"a file directly in {submitted.name}/, "
                                   f"not a student's folder (expected {LAYOUT})"))
            continue
        students[student] = entry
        if not is_utf8(name):
            flagged.append(Skipped(student, "", "", "", f"the folder name is not UTF-8 "
                                   f"({os.fsencode(name)!r}); it is shown as {student!r}"))
        found_any = False
        budget = ReadBudget()
        for path, kind, link in _walk(entry):
            found_any = True
            parts = path.relative_to(entry).parts
            shown = "/".join([student, *map(readable_name, parts)])
            if kind == "too-many":
                skipped.append(Skipped(student, "", "", f"{student}/", f"the folder holds more "
                                       f"than {MAX_ENTRIES} files and folders; the rest was not "
                                       "looked at"))
                continue
            if kind == "too-deep":
                skipped.append(Skipped(student, "", "", shown, f"nested more than {MAX_DEPTH} "
                                       "folders deep; not looked at"))
                continue
            folder = match_assignment(parts[0]) if len(parts) > 1 else None
            named = exercise_by_name(_answer_name(path))
            guess = named.notebook if named else ""
            home = named.assignment if named else (folder or "")
            if link or not _inside(path, entry):
                skipped.append(Skipped(student, home, guess, shown, "a symbolic link; only "
                                       "files of the student's own are graded", tampering=True))
                continue
            if path.suffix.lower() != ".ipynb":
                what = EXPORTS.get(path.suffix.lower(), "not a notebook")
                skipped.append(Skipped(student, home, guess, shown, f"{what}, not a notebook; "
                                       "submit the .ipynb file"))
                continue
            expected = f"{student}/{home or '<assignment>'}/{path.name}"
            if len(parts) == 1:
                skipped.append(Skipped(student, home, guess, shown, f"directly in the student's "
                                       f"folder; expected {expected}"))
                continue
            if folder is None:
                skipped.append(Skipped(student, home, guess, shown, f"{readable_name(parts[0])}/"
                                       " is not an assignment of the course (expected one of "
                                       f"{', '.join(ASSIGNMENTS)}/)"))
                continue
            if len(parts) > 2:
                skipped.append(Skipped(student, home or folder, guess, shown,
                                       f"too deep in folders; expected {student}/"
                                       f"{home or folder}/{path.name}"))
                continue
            exercise, document = recognise(path, budget)
            if exercise is None and path in budget.unread:
                skipped.append(Skipped(student, folder, "", shown, not_read("this student's")))
                continue
            if exercise is None:
                skipped.append(Skipped(student, folder, "", shown, "not one of the course's "
                                       "notebooks: its name and graded cells match no exercise"))
                continue
            try:
                links = os.lstat(path).st_nlink
            except OSError:
                links = 1
            candidates.setdefault((student, exercise), []).append(_Candidate.of(
                path, shown, readable_name(parts[0]), exercise, document, links, budget))
        if not found_any:
            skipped.append(Skipped(student, "", "", "", f"the folder {student}/ is empty: "
                                   "nothing was submitted"))

    graded = (only,) if only else tuple(a for a in ASSIGNMENTS if any(
        exercise.assignment == a for _, exercise in candidates))
    picked = [(student, exercise, found, *choose(found)) for (student, exercise), found in
              sorted(candidates.items(), key=lambda kv: (kv[0][0], kv[0][1].notebook))
              if exercise.assignment in graded]
    if walked is not None:
        walked([(student, best.path) for student, _, _, best, _ in picked])
    folders = output_folders(students)
    submissions: list[Submission] = []
    chosen: dict[Submission, str] = {}
    for student, exercise, found, best, why in picked:
        submission = Submission(student, exercise.assignment, best.path, best.shown, exercise,
                                students[student], folders[student])
        submissions.append(submission)
        if why:
            chosen[submission] = why
        for other in found:
            if other is not best:
                skipped.append(Skipped(student, exercise.assignment, exercise.notebook,
                                       other.shown, f"{NOT_COUNTED}{best.shown} counts for "
                                       f"{exercise.notebook} (one file per exercise)"))
        if best.links > 1:
            flagged.append(Skipped(student, exercise.assignment, exercise.notebook, best.shown,
                                   f"flagged: the file has {best.links} hard links, so the same "
                                   "file may be another student's submission too"))
    if not submissions and not any(s.file.endswith(".ipynb") for s in skipped):
        where = f" for {only}" if only else ""
        raise LayoutError(f"{submitted} holds no notebooks{where} (expected {LAYOUT})")
    skipped = [s for s in skipped if not s.assignment or s.assignment in graded]
    flagged = [s for s in flagged if not s.assignment or s.assignment in graded]
    return Discovery(sorted(students), graded, submissions, skipped, flagged, chosen,
                     {name: folder for name, folder in folders.items() if folder != name},
                     look_alikes(students))


def discover_upload(folder: Path, assignment: str, student: str = "submission") -> Discovery:
    """One student's upload of one assignment in any layout (Gradescope's submission folder):
    every notebook under `folder`, at any depth, is a candidate for its exercise, and the
    module's rule picks one per exercise. Links and other files are listed, not graded."""
    folder = Path(folder)
    skipped: list[Skipped] = []
    flagged: list[Skipped] = []
    candidates: dict[Exercise, list[_Candidate]] = {}
    budget = ReadBudget()
    for path, kind, link in _walk(folder):
        shown = "/".join(map(readable_name, path.relative_to(folder).parts))
        if kind != "file":
            skipped.append(Skipped(student, assignment, "", shown, "too many files or folders, "
                                   "or too deep; not looked at"))
        elif link or not _inside(path, folder):
            skipped.append(Skipped(student, assignment, "", shown, "a symbolic link; only "
                                   "files of your own are graded", tampering=True))
        elif path.suffix.lower() != ".ipynb":
            what = EXPORTS.get(path.suffix.lower(), "not a notebook")
            named = exercise_by_name(_answer_name(path))
            skipped.append(Skipped(student, assignment, named.notebook if named else "", shown,
                                   f"{what}, not a notebook; submit the .ipynb file"))
        else:
            exercise, document = recognise(path, budget)
            if exercise is None and path in budget.unread:
                skipped.append(Skipped(student, assignment, "", shown, not_read("your")))
                continue
            if exercise is None or exercise.assignment != assignment:
                skipped.append(Skipped(student, assignment, "", shown, "not one of the notebooks "
                                       f"of {assignment}"))
                continue
            candidates.setdefault(exercise, []).append(_Candidate.of(
                path, shown, assignment, exercise, document, os.lstat(path).st_nlink, budget))
    submissions, chosen = [], {}
    for exercise, found in sorted(candidates.items(), key=lambda kv: kv[0].notebook):
        best, why = choose(found)
        submission = Submission(student, assignment, best.path, best.shown, exercise, folder)
        submissions.append(submission)
        if why:
            chosen[submission] = why
        skipped += [Skipped(student, assignment, exercise.notebook, other.shown,
                            f"{NOT_COUNTED}{best.shown} counts for {exercise.notebook}")
                    for other in found if other is not best]
    return Discovery([student], (assignment,), submissions, skipped, flagged, chosen)
