"""Probes for notebook 07's runs table: its constraints, acquire_run/finish_run step by step, and
triggers that race for one run.
"""

from __future__ import annotations

import hashlib
import sqlite3
from datetime import timedelta
from zoneinfo import ZoneInfo

from . import lookup, probe
from ._capstone import (
    BASE,
    VARIANTS,
    LookTogetherApart,
    World,
    attempt_rows,
    count,
    labeller,
    patient,
    race_in_processes,
    raw_label,
    runs_rows,
    scratch,
    seconds_after_base,
)

RUN_COLUMNS = ("run_key, state, attempt, owner, lease_expires_at, raw_hash, error, created_at, "
               "updated_at")


def _insert(db: sqlite3.Connection, sql: str, values: tuple) -> str:
    try:
        db.execute(sql, values)
    except sqlite3.IntegrityError:
        return "rejected (IntegrityError)"
    except sqlite3.Error as error:
        return f"error: {type(error).__name__}: {error}"
    return "accepted"


@probe("runs_table.constraints")
def constraints(namespace: dict) -> dict:
    """Insert rows straight into the student's tables and see what the schema lets through."""
    with scratch() as folder:
        world = World(namespace, folder)
        try:
            stamp = BASE.isoformat()
            sql = f"INSERT INTO runs ({RUN_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
            row = ("k", "RUNNING", 1, "w1", stamp, None, None, stamp, stamp)
            attempt_sql = ("INSERT INTO attempts (run_key, attempt, owner, started_at, outcome, "
                           "note) VALUES (?, ?, ?, ?, ?, ?)")
            attempt = ("k", 1, "w1", stamp, "RUNNING", "first")
            return {
                "a first run": _insert(world.db, sql, row),
                "the same run_key again": _insert(world.db, sql, row[:3] + ("w2",) + row[4:]),
                "a state that is not RUNNING/SUCCEEDED/FAILED":
                    _insert(world.db, sql, ("k2", "DONE") + row[2:]),
                "a first attempt": _insert(world.db, attempt_sql, attempt),
                "the same (run_key, attempt) again": _insert(world.db, attempt_sql, attempt),
                "creating the tables a second time": _create_again(namespace, world.db),
            }
        finally:
            world.close()


def _create_again(namespace: dict, db: sqlite3.Connection) -> str:
    lookup(namespace, "create_runs_table")(db)
    return f"fine, {count(db, 'runs')} row(s) kept"


def _claim_view(claim: object) -> object:
    if type(claim) is not dict:
        return f"not a dict: {type(claim).__name__}"
    return {"action": claim.get("action"), "attempt": claim.get("attempt"),
            "raw_hash": raw_label(claim.get("raw_hash"))}


@probe("runs_table.script")
def runs_script(namespace: dict, steps: list) -> list:
    """Run a list of steps against acquire_run/finish_run; observe each step and the tables.

    ("acquire", key, seconds after BASE, lease seconds, owner)
    ("acquire_karachi", ...)  -- the same, with `now` given in Asia/Karachi time
    ("finish", key, attempt, state, seconds after BASE, error)
    ("raw", key, variant)   -- the job records which raw input it fetched
    ("tables",)             -- the runs and attempts rows
    """
    acquire_run = lookup(namespace, "acquire_run")
    finish_run = lookup(namespace, "finish_run")
    with scratch() as folder:
        world = World(namespace, folder)
        keys = sorted({step[1] for step in steps if len(step) > 1})
        label = labeller(keys)
        seen = []
        try:
            for step in steps:
                kind = step[0]
                try:
                    if kind in ("acquire", "acquire_karachi"):
                        _, key, at, lease, owner = step
                        now = BASE + timedelta(seconds=at)
                        if kind == "acquire_karachi":
                            now = now.astimezone(ZoneInfo("Asia/Karachi"))
                        claim = acquire_run(world.db, key, now, lease, owner)
                        seen.append(["acquire", label(key), at, owner, _claim_view(claim)])
                    elif kind == "finish":
                        _, key, attempt, state, at, error = step
                        done = finish_run(world.db, key, attempt, state,
                                          BASE + timedelta(seconds=at), error)
                        seen.append(["finish", label(key), attempt, state,
                                     done if type(done) is bool else f"not a bool: {done!r}"])
                    elif kind == "raw":
                        _, key, variant = step
                        raw_hash = hashlib.sha256(VARIANTS[variant]).hexdigest()
                        world.db.execute("UPDATE runs SET raw_hash = ? WHERE run_key = ?",
                                         (raw_hash, key))
                    elif kind == "tables":
                        seen.append(["tables", runs_rows(world.db, label),
                                     attempt_rows(world.db, label)])
                except Exception as error:  # one step's error is an observation too
                    seen.append([kind, f"raised {type(error).__name__}"])
            return seen
        finally:
            world.close()

@probe("runs_table.not_null")
def not_null(namespace: dict, table: str, columns: list) -> dict:
    """Which of `columns` of the student's `table` are not declared NOT NULL, read from the
    schema (PRAGMA table_info) through a connection of the probe's own; a column the table
    lacks is named as missing (it is not NOT NULL either)."""
    with scratch() as folder:
        world = World(namespace, folder)
        reader = sqlite3.connect(str(world.path), timeout=10.0, isolation_level=None)
        try:
            declared = {str(name).lower(): bool(flag) for name, flag in reader.execute(
                'SELECT name, "notnull" FROM pragma_table_info(?)', (table,)).fetchall()}
            return {"columns not declared NOT NULL": [
                column if column in declared else f"{column} (no such column)"
                for column in columns if not declared.get(column, False)]}
        finally:
            reader.close()
            world.close()


def _run_row(reader: sqlite3.Connection, key: str) -> tuple[dict, object] | None:
    """The run's row as (its columns but updated_at, updated_at), or None when it has none."""
    cursor = reader.execute("SELECT * FROM runs WHERE run_key = ?", (key,))
    names = [str(column[0]).lower() for column in cursor.description or ()]
    row = cursor.fetchone()
    if row is None:
        return None
    values = dict(zip(names, row, strict=True))
    return values, values.pop("updated_at", None)


def _moment(text: object) -> str:
    seconds = seconds_after_base(text)
    return f"{seconds:g} s" if isinstance(seconds, float) else repr(seconds)


@probe("runs_table.updated_at")
def updated_at(namespace: dict, steps: list) -> dict:
    """Call acquire_run and finish_run on one run, as `steps` say, and check updated_at
    against each call's own effect on the run's row, read through a connection of the probe's
    own: a call that changed any other column (or made the row) must leave updated_at at its
    `now`; a call that changed nothing must leave updated_at as it was. What each call does
    to the other columns is left to the cases about them: only updated_at is judged here.

    ("acquire", seconds after BASE, owner)  -- lease 300 s
    ("finish", attempt, state, seconds after BASE, error)
    """
    acquire_run = lookup(namespace, "acquire_run")
    finish_run = lookup(namespace, "finish_run")
    with scratch() as folder:
        world = World(namespace, folder)
        reader = sqlite3.connect(str(world.path), timeout=10.0, isolation_level=None)
        broken: list[str] = []
        made = False
        try:
            columns = [str(name).lower() for (name,) in reader.execute(
                "SELECT name FROM pragma_table_info('runs')").fetchall()]
            if "updated_at" not in columns:
                return {"the first acquire_run made the run's row": "runs has no updated_at column",
                        "calls after which updated_at breaks the rule": []}
            for index, step in enumerate(steps):
                before = _run_row(reader, "k")
                if step[0] == "acquire":
                    _, at, owner = step
                    call = f"acquire_run at {at:g} s"
                    now = BASE + timedelta(seconds=at)
                    try:
                        acquire_run(world.db, "k", now, 300.0, owner)
                    except Exception:  # noqa: S110 (what the call did to the row is judged)
                        pass
                else:
                    _, attempt, state, at, error = step
                    call = f"finish_run(attempt {attempt}, {state!r}) at {at:g} s"
                    now = BASE + timedelta(seconds=at)
                    try:
                        finish_run(world.db, "k", attempt, state, now, error)
                    except Exception:  # noqa: S110 (what the call did to the row is judged)
                        pass
                after = _run_row(reader, "k")
                if index == 0:
                    made = after is not None
                if after is None:
                    continue
                stamp = seconds_after_base(after[1])
                if before is None or before[0] != after[0]:
                    if stamp != float(at):
                        broken.append(f"{call} changed the run's row, and updated_at is "
                                      f"{_moment(after[1])}")
                elif after[1] != before[1]:
                    broken.append(f"{call} changed nothing else, and moved updated_at from "
                                  f"{_moment(before[1])} to {_moment(after[1])}")
            return {"the first acquire_run made the run's row": made,
                    "calls after which updated_at breaks the rule": broken}
        finally:
            reader.close()
            world.close()


@probe("runs_table.race")
def runs_race(namespace: dict, workers: int) -> dict:
    """`workers` triggers, each in a process of its own with its own connection, acquire one new
    run at the same moment (processes: a lock or a set in Python cannot decide who is first)."""
    acquire_run = lookup(namespace, "acquire_run")
    connect = lookup(namespace, "connect")
    with scratch() as folder:
        race = LookTogetherApart(workers)
        worlds: list = []

        def attempt(index: int, pids: tuple) -> str:
            race.index, race.pids = index, pids
            db = patient(connect(folder / "runs.db"))
            why = None
            try:
                try:
                    claim = acquire_run(race.connection(db), "k", BASE, 300.0,
                                        f"worker-{index + 1}")
                    answer = str(claim.get("action") if type(claim) is dict else "not a dict")
                except Exception as error:
                    answer = f"raised {type(error).__name__}"
                finally:
                    why = race.finished(given=True)
                return why or answer
            finally:
                db.close()

        try:
            actions = race_in_processes(workers, attempt,
                                        lambda: worlds.append(World(namespace, folder)))
            return {"actions": sorted(actions),
                    "runs rows": count(worlds[0].db, "runs"),
                    "attempts rows": count(worlds[0].db, "attempts")}
        finally:
            race.close()
            for world in worlds:
                world.close()
