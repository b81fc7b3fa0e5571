"""Due dates, per-student extensions and the late policy, from one TOML file.

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
without a due date for its assignment, is never late.
"""

from __future__ import annotations

import math
import os
import stat
import sys
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

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

    def due_for(self, student: str, assignment: str) -> datetime | None:
        return self.extensions.get(student, {}).get(assignment) or self.due.get(assignment)

    def judge(self, student: str, assignment: str, submitted_at: datetime | None) -> Lateness:
        due = self.due_for(student, assignment)
        if submitted_at is None:
            note = f"no {TIMESTAMP}, so it counts as on time" if due else ""
            return Lateness(None, None, 0.0, note)
        if due is None or submitted_at <= due + self.grace:
            return Lateness(submitted_at, None)
        late_by = submitted_at - due
        fraction = 0.0
        if self.penalty_per:
            unit = timedelta(days=1) if self.penalty_per == "day" else timedelta(hours=1)
            fraction = max(0.0, min(1.0, math.ceil(late_by / unit) * self.penalty_percent / 100))
        if self.zero_after is not None and late_by > self.zero_after:
            fraction = 1.0
        hours = late_by.total_seconds() / 3600
        note = (f"submitted {hours:.2f} h after the due date {due.isoformat(timespec='minutes')}"
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
    unknown = set(data) - {"due", "extensions", "late"}
    if unknown:
        raise DeadlineError(f"{path}: unknown section {sorted(unknown)[0]!r} (expected [due], "
                            "[extensions.<student>] and [late])")
    for section in ("due", "extensions", "late"):
        if not isinstance(data.get(section, {}), dict):
            raise DeadlineError(f"{path}: write [{section}] as a section of its own, with one "
                                "line per entry")
    policy = Policy()
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
            raise DeadlineError(f"{path} [late]: {key} must be at least 0 and at most "
                                f"{LONGEST[key]:,g} (a negative grace would turn the late "
                                "penalty into a bonus)")
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
    if per and not 0 < policy.penalty_percent <= 100:
        raise DeadlineError(f"{path} [late]: penalty_percent must be above 0 and at most 100")
    policy.penalty_per = per
    return policy


def read_timestamp(folder: Path) -> datetime | None:
    """nbgrader's submission time in `folder`/timestamp.txt ("2026-03-01 12:34:56.123456 UTC"),
    or None when there is none or it cannot be read. It is the student's file: read at most
    200 bytes of a regular file, never through a link."""
    path = Path(folder) / TIMESTAMP
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode):
            return None
        with open(path, "rb") as handle:
            text = handle.read(200).decode("utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return None
    utc = text.endswith((" UTC", "Z"))
    text = text.removesuffix(" UTC").removesuffix("Z").strip()
    try:
        when = datetime.fromisoformat(text)
    except ValueError:
        return None
    if when.tzinfo is None:  # nbgrader writes UTC
        when = when.replace(tzinfo=timezone.utc)
    elif utc:
        return None
    return when
