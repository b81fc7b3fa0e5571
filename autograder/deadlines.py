"""Due dates, per-student extensions and the late policy, from one TOML file.

    timezone = "Europe/London" # optional: nbgrader's Exchange.timezone, to read "... BST"

    [due]                      # per assignment, with a time-zone offset
    schedules = 2026-03-01T23:59:00+01:00
    resilience = 2026-03-15T23:59:00+01:00

    [extensions.ada]           # per student: a later due date for some assignments
    schedules = 2026-03-03T23:59:00+01:00

    [late]                     # leave the section out for no penalty (the default)
    grace_minutes = 10         # this much after the due date still counts as on time
    penalty_per = "day"        # "day" or "hour": each started day (hour) late costs ...
    penalty_percent = 10       # ... this percent of the notebook's score
    zero_after_hours = 72      # later than this after the due date scores 0 (0: any late)

The time of a submission is nbgrader's `timestamp.txt` in the student's assignment folder
(`nbgrader submit` writes it, `nbgrader collect` keeps it). A notebook without one, or
without a due date for its assignment, is never late; one whose timestamp.txt names no time
(`read_timestamp`) is not late either, but its row says why and is flagged.
"""

from __future__ import annotations

import math
import os
import stat
import sys
import zoneinfo
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone, tzinfo
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

from . import escape
from .rubric import ASSIGNMENTS

TIMESTAMP = "timestamp.txt"
# The largest value each number of [late] may have: ten years, in its own unit (and percent).
LONGEST = {"grace_minutes": 10 * 366 * 24 * 60.0, "zero_after_hours": 10 * 366 * 24.0,
           "penalty_percent": 100.0}


class DeadlineError(Exception):
    """The deadlines file cannot be used; the message is one sentence for a person."""


@dataclass(frozen=True)
class Lateness:
    submitted_at: datetime | None
    late_by: timedelta | None  # None: on time, or nothing to compare with
    fraction: float = 0.0  # of the score deducted, 0 to 1
    note: str = ""

    @property
    def submitted_text(self) -> str:
        return self.submitted_at.isoformat(timespec="seconds") if self.submitted_at else ""

    @property
    def late_text(self) -> str:
        """Hours late with two decimals, blank when on time."""
        return f"{self.late_by.total_seconds() / 3600:.2f}" if self.late_by else ""


@dataclass
class Policy:
    due: dict[str, datetime] = field(default_factory=dict)
    extensions: dict[str, dict[str, datetime]] = field(default_factory=dict)
    grace: timedelta = timedelta(0)
    penalty_per: str | None = None  # "day", "hour" or None
    penalty_percent: float = 0.0
    zero_after: timedelta | None = None
    zone: tzinfo | None = None  # the course's time zone, to read "BST" in a timestamp.txt

    def due_for(self, student: str, assignment: str) -> datetime | None:
        return self.extensions.get(student, {}).get(assignment) or self.due.get(assignment)

    def judge(self, student: str, assignment: str, submitted_at: datetime | None,
              unreadable: str = "") -> Lateness:
        """How late a submission is. `unreadable`: why its timestamp.txt says no time (it
        then counts as on time, and the note asks the instructor to check it)."""
        due = self.due_for(student, assignment)
        if submitted_at is None:
            why = f"{unreadable}; check it" if unreadable else f"no {TIMESTAMP}"
            return Lateness(None, None, 0.0, f"{why}, so it counts as on time" if due else "")
        extended = assignment in self.extensions.get(student, {})
        if due is None or submitted_at <= due + self.grace:
            return Lateness(submitted_at, None, 0.0, f"on time with the extension to "
                            f"{due.isoformat(timespec='minutes')}" if extended and due else "")
        late_by = submitted_at - due
        fraction = 0.0
        if self.penalty_per:
            unit = timedelta(days=1) if self.penalty_per == "day" else timedelta(hours=1)
            fraction = max(0.0, min(1.0, math.ceil(late_by / unit) * self.penalty_percent / 100))
        if self.zero_after is not None and late_by > self.zero_after:
            fraction = 1.0
        hours = late_by.total_seconds() / 3600
        note = (f"submitted {hours:.2f} h after the {'extended ' if extended else ''}due date "
                f"{due.isoformat(timespec='minutes')}"
                + (f"; late penalty {fraction * 100:g}% of the score" if fraction else ""))
        return Lateness(submitted_at, late_by, fraction, note)


def _when(value: object, where: str) -> datetime:
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value)
        except ValueError:
            raise DeadlineError(f"{where}: {value!r} is not a date and time such as "
                                "2026-03-01T23:59:00+01:00") from None
    if not isinstance(value, datetime):
        raise DeadlineError(f"{where}: give a date and time such as 2026-03-01T23:59:00+01:00")
    if value.tzinfo is None:
        raise DeadlineError(f"{where}: {value.isoformat()} has no time-zone offset; add one, "
                            "for example +01:00 or Z")
    return value


def _zone(name: object, where: str) -> tzinfo:
    """The zone named in deadlines.toml's `timezone` (nbgrader's Exchange.timezone)."""
    if isinstance(name, str):
        try:
            return zoneinfo.ZoneInfo(name)
        except (ValueError, OSError, zoneinfo.ZoneInfoNotFoundError):  # as parse_timestamp
            pass
    raise DeadlineError(f"{where}: {escape.one_line(name, 60)!r} is not a time zone this machine "
                        "knows; write its IANA name, such as \"Europe/London\", at the top of "
                        "the file")


def _assignment(name: str, where: str) -> str:
    for assignment in ASSIGNMENTS:
        if assignment.casefold() == name.casefold():
            return assignment
    raise DeadlineError(f"{where}: {name!r} is not an assignment of the course "
                        f"(expected one of {', '.join(ASSIGNMENTS)})")


def load(path: Path | None) -> Policy:
    """The policy in `path`; no file means no due dates and no penalty."""
    if path is None:
        return Policy()
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as error:
        raise DeadlineError(f"cannot read {path} ({error.strerror or error})") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise DeadlineError(f"{path} is not valid TOML ({error})") from None
    unknown = set(data) - {"due", "extensions", "late", "timezone"}
    if unknown:
        raise DeadlineError(f"{path}: unknown section {sorted(unknown)[0]!r} (expected [due], "
                            "[extensions.<student>] and [late], and timezone at the top)")
    for section in ("due", "extensions", "late"):
        if not isinstance(data.get(section, {}), dict):
            raise DeadlineError(f"{path}: write [{section}] as a section of its own, with one "
                                "line per entry")
    policy = Policy()
    if "timezone" in data:
        policy.zone = _zone(data["timezone"], f"{path} timezone")
    for name, when in data.get("due", {}).items():
        policy.due[_assignment(name, f"{path} [due]")] = _when(when, f"{path} [due] {name}")
    for student, dates in data.get("extensions", {}).items():
        if not isinstance(dates, dict):
            raise DeadlineError(f"{path}: write an extension as [extensions.{student}] with "
                                "one line per assignment")
        policy.extensions[student] = {
            _assignment(name, f"{path} [extensions.{student}]"):
                _when(when, f"{path} [extensions.{student}] {name}")
            for name, when in dates.items()}
    late = data.get("late", {})
    known = {"grace_minutes", "penalty_per", "penalty_percent", "zero_after_hours"}
    if set(late) - known:
        raise DeadlineError(f"{path} [late]: unknown key {sorted(set(late) - known)[0]!r} "
                            f"(expected {', '.join(sorted(known))})")
    try:
        numbers = {key: float(late[key]) for key in ("grace_minutes", "penalty_percent",
                                                     "zero_after_hours") if key in late}
    except (TypeError, ValueError):
        raise DeadlineError(f"{path} [late]: grace_minutes, penalty_percent and "
                            "zero_after_hours are numbers") from None
    for key, value in numbers.items():
        if not 0 <= value <= LONGEST[key]:  # also NaN and infinity
            why = (" (ten years)" if key != "penalty_percent" and value > LONGEST[key] else
                   " (a negative grace would turn the late penalty into a bonus)"
                   if key == "grace_minutes" and value < 0 else "")
            raise DeadlineError(f"{path} [late]: {key} must be at least 0 and at most "
                                f"{LONGEST[key]:,.0f}{why}")
    policy.grace = timedelta(minutes=numbers.get("grace_minutes", 0.0))
    policy.penalty_percent = numbers.get("penalty_percent", 0.0)
    if "zero_after_hours" in numbers:
        policy.zero_after = timedelta(hours=numbers["zero_after_hours"])
    dates = [(f"[due] {name}", when) for name, when in policy.due.items()]
    dates += [(f"[extensions.{student}] {name}", when)
              for student, mine in policy.extensions.items() for name, when in mine.items()]
    for where, when in dates:
        try:
            when + policy.grace + (policy.zero_after or timedelta(0))
        except OverflowError:
            raise DeadlineError(f"{path} {where}: {when.isoformat()} plus the grace time is past "
                                "the last date there is; leave the assignment out of [due] for "
                                "no due date") from None
    per = late.get("penalty_per")
    if per not in (None, "day", "hour"):
        raise DeadlineError(f"{path} [late]: penalty_per is \"day\" or \"hour\", not {per!r}")
    if per is None and policy.penalty_percent:
        raise DeadlineError(f"{path} [late]: penalty_percent needs penalty_per = \"day\" or "
                            "\"hour\" (what each penalty_percent is for)")
    if per and not 0 < policy.penalty_percent <= 100:
        raise DeadlineError(f"{path} [late]: penalty_percent must be above 0 and at most 100")
    policy.penalty_per = per
    return policy


class TimestampError(Exception):
    """A student's timestamp.txt is there but says no time this grader can place; the message
    is one sentence for the instructor."""


UTC_NAMES = ("UTC", "GMT", "UT", "Z")


def read_timestamp(folder: Path, zone: tzinfo | None = None) -> datetime | None:
    """nbgrader's submission time in `folder`/timestamp.txt, or None when there is none. It is
    the student's file: read at most 200 bytes of a regular file, never through a link.

    nbgrader writes its `Exchange.timezone` time with the zone's abbreviation
    ("2026-03-01 12:34:56.123456 UTC", or "... BST" for Europe/London in summer); an ISO 8601
    time with an offset or Z is read too. An abbreviation other than UTC's is placed with
    `zone` (deadlines.toml's `timezone`), and only where that zone uses it on that date.
    Anything else raises TimestampError: it never passes silently for "on time"."""
    path = Path(folder) / TIMESTAMP
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode):
            return None
        with open(path, "rb") as handle:
            raw = handle.read(200)
    except FileNotFoundError:
        return None
    except OSError as error:
        raise TimestampError(f"{TIMESTAMP} cannot be read ({error.strerror or error})") from None
    try:
        text = raw.decode("utf-8").strip()
    except UnicodeDecodeError:
        raise TimestampError(f"{TIMESTAMP} is not UTF-8 text") from None
    return parse_timestamp(text, zone)


def parse_timestamp(text: str, zone: tzinfo | None = None) -> datetime:
    """The time `text` names (see read_timestamp), or TimestampError."""
    shown = escape.one_line(text, 60)
    bare = text.removesuffix("Z").removesuffix(" UTC")
    try:
        when = datetime.fromisoformat(bare)
    except ValueError:
        pass
    else:
        if when.tzinfo is None:  # nbgrader's own UTC form, or no zone at all: UTC
            return when.replace(tzinfo=timezone.utc)
        if bare == text:
            return when
        raise TimestampError(f"{TIMESTAMP} says '{shown}', which names two time zones")
    local, _, name = text.rpartition(" ")
    try:
        naive = datetime.fromisoformat(local)
    except ValueError:
        raise TimestampError(f"{TIMESTAMP} says '{shown}', which is not a date and time") \
            from None
    if naive.tzinfo is not None:
        raise TimestampError(f"{TIMESTAMP} says '{shown}', which names two time zones")
    if name.upper() in UTC_NAMES:
        return naive.replace(tzinfo=timezone.utc)
    if "/" in name:  # an IANA name, as nbgrader's Exchange.timezone is given
        try:
            return naive.replace(tzinfo=zoneinfo.ZoneInfo(name))
        # OSError: a folder of zones (America/Argentina), or a zone read as a folder
        except (ValueError, OSError, zoneinfo.ZoneInfoNotFoundError):
            raise TimestampError(f"{TIMESTAMP} says '{shown}': '{escape.one_line(name, 40)}' "
                                 "is no time zone this machine knows") from None
    places = [zone] if zone is not None else []
    for place in places:
        for fold in (0, 1):
            when = naive.replace(tzinfo=place, fold=fold)
            if when.tzname() == name:
                return when
    where = (f"not what {zone} is called on that date" if zone is not None else
             "a time-zone abbreviation, and deadlines.toml names no timezone to place it "
             "(add timezone = \"Europe/London\", say: nbgrader's Exchange.timezone)")
    raise TimestampError(f"{TIMESTAMP} says '{shown}': '{escape.one_line(name, 40)}' is "
                         f"{where}")
