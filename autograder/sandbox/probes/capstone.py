"""Probes for notebook 07 (the safe scheduler).

Each probe builds a fresh SQLite database in its own `tempfile.mkdtemp()` folder, drives the
notebook's functions with an injected clock and returns what it saw as plain data: rows of the
runs table, row counts, statuses, which raw input a run used. Times come back as seconds after
BASE and hashes as labels ("raw #1"), so that a failure message stays readable. The same probe
runs on the reference solution, and the grader compares the two observations.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
import shutil
import sqlite3
import tempfile
import threading
from contextlib import contextmanager
from datetime import datetime, timedelta, timezone
from pathlib import Path
from zoneinfo import ZoneInfo

from . import lookup, probe

UTC = timezone.utc
BASE = datetime(2024, 3, 15, 6, 5, tzinfo=UTC)  # 11:05 in Karachi: the 06:00 UTC run fires
SOURCE_NAME = "psx-cache"
CONFIG = {"symbols": ["ENGRO", "HBL", "OGDC"], "metric": "vwap"}


# --------------------------------------------------------------------------- data and helpers

def quotes(seed: int, minutes: int = 12, hour: int = 5) -> bytes:
    """A small deterministic quote file in the notebook's CSV format, for the window that
    starts at `hour` UTC (the same prices whatever the hour)."""
    rng = random.Random(seed)
    lines = ["symbol,ts,price,volume"]
    start = datetime(2024, 3, 15, hour, 0, tzinfo=UTC)
    for symbol, price in (("ENGRO", 318.4), ("HBL", 97.15), ("OGDC", 121.6)):
        for minute in range(minutes):
            price = round(price * (1 + rng.gauss(0, 0.002)), 2)
            moment = (start + timedelta(minutes=minute)).isoformat()
            lines.append(f"{symbol},{moment},{price:.2f},{rng.randrange(100, 9000, 50)}")
    return ("\n".join(lines) + "\n").encode()


def variant(label: str, hour: int = 5) -> bytes:
    """The raw bytes a variant names, with quotes for the window that starts at `hour` UTC."""
    raw = quotes(2 if label.startswith("raw #2") else 1, hour=hour)
    if label == "a row with a negative price":
        return raw.replace(b",97.", b",-97.", 1)
    if label == "a renamed column":
        return raw.replace(b"symbol,ts,price", b"symbol,time,price", 1)
    return raw


VARIANT_NAMES = ("raw #1", "raw #2 (the feed changed since)", "a row with a negative price",
                 "a renamed column")
VARIANTS = {label: variant(label) for label in VARIANT_NAMES}
LABELS = {hashlib.sha256(variant(label, hour)).hexdigest(): label
          for label in VARIANT_NAMES for hour in range(24)}


def raw_label(value: object) -> object:
    if value is None:
        return None
    if type(value) is not str:
        return f"not a str: {type(value).__name__}"
    return LABELS.get(value, "a hash of something else")


@contextmanager
def scratch():
    folder = Path(tempfile.mkdtemp(prefix="capstone-"))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def seconds_after_base(text: object) -> object:
    """A stored timestamp as seconds after BASE; a note when it is not aware ISO 8601."""
    if text is None:
        return None
    try:
        moment = datetime.fromisoformat(str(text))
    except ValueError:
        return f"unreadable time {str(text)[:40]!r}"
    if moment.tzinfo is None:
        return f"time without a zone {str(text)[:40]!r}"
    offset = (moment - BASE).total_seconds()
    return offset if moment.utcoffset() == timedelta(0) else f"not stored in UTC: {text}"


def moment_text(value: object) -> object:
    """A returned datetime as UTC text (so any correct UTC tzinfo compares equal)."""
    if not isinstance(value, datetime):
        return f"not a datetime: {type(value).__name__}"
    if value.tzinfo is None or value.utcoffset() is None:
        return f"naive {value.isoformat()}"
    return value.astimezone(UTC).isoformat()


def window_text(value: object) -> object:
    if not isinstance(value, (tuple, list)) or len(value) != 2:
        return f"not a (start, end) pair: {type(value).__name__}"
    return [moment_text(value[0]), moment_text(value[1])]


KEY_PATTERN = re.compile(r"[0-9a-f]{12}")


def file_names(store) -> list[str]:
    return sorted(KEY_PATTERN.sub("<key>", name) for name in store.names())


def labeller(keys: list[str]):
    names = {key: f"run #{index + 1}" for index, key in enumerate(keys)}
    return lambda key: names.get(key, "an unknown run_key") if key is not None else None


def runs_rows(db: sqlite3.Connection, label) -> list:
    rows = db.execute(
        "SELECT run_key, state, attempt, owner, lease_expires_at, raw_hash, error, created_at "
        "FROM runs ORDER BY created_at, run_key").fetchall()
    return [{"run": label(key), "state": state, "attempt": attempt, "owner": owner,
             "lease_expires_at": seconds_after_base(lease), "raw_hash": raw_label(raw_hash),
             "error": error, "created_at": seconds_after_base(created)}
            for key, state, attempt, owner, lease, raw_hash, error, created in rows]


def attempt_rows(db: sqlite3.Connection, label) -> list:
    rows = db.execute("SELECT run_key, attempt, owner, started_at, outcome, note FROM attempts "
                      "ORDER BY started_at, attempt").fetchall()
    return [[label(key), attempt, owner, seconds_after_base(started), outcome, note]
            for key, attempt, owner, started, outcome, note in rows]


def count(db: sqlite3.Connection, table: str) -> int:
    return db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]


def result_view(result: object, key: str | None) -> object:
    """The parts of run_job's result the tests compare."""
    if type(result) is not dict:
        return f"not a dict: {type(result).__name__}"
    report = result.get("report")
    return {
        "status": result.get("status"),
        "attempt": result.get("attempt"),
        "error": result.get("error"),
        "raw_hash": raw_label(result.get("raw_hash")),
        "report": KEY_PATTERN.sub("<key>", report) if type(report) is str else report,
        "run_key is run_key(...)": type(result.get("run_key")) is str and result["run_key"] == key,
    }


class World:
    """A database, a clock, a source and a store in one scratch folder."""

    def __init__(self, namespace: dict, folder: Path, raw: bytes = VARIANTS["raw #1"]):
        self.namespace = namespace
        self.path = folder / "runs.db"
        self.db = lookup(namespace, "connect")(self.path)
        lookup(namespace, "create_runs_table")(self.db)
        self.clock = lookup(namespace, "Clock")(BASE)
        self.source = lookup(namespace, "QuoteSource")(SOURCE_NAME, raw, self.clock)
        self.store = lookup(namespace, "ArtifactStore")(folder / "out")

    def job(self, hour: int = 5, **settings):
        start = datetime(2024, 3, 15, hour, 0, tzinfo=UTC)
        return lookup(self.namespace, "Job")("psx_hourly", start, start + timedelta(hours=1),
                                             dict(CONFIG), **settings)

    def key(self, job) -> str:
        return lookup(self.namespace, "run_key")(job.name, job.window_start, job.window_end,
                                                 job.config, SOURCE_NAME)

    def tables(self, label) -> dict:
        return {"runs": runs_rows(self.db, label), "attempts": attempt_rows(self.db, label),
                "rows": {table: count(self.db, table)
                         for table in ("raw_inputs", "records", "metrics", "artifacts", "gaps")}}

    def close(self) -> None:
        self.db.close()


# --------------------------------------------------------------------------- 1. run_key

def _key(namespace: dict, parts: dict) -> object:
    return lookup(namespace, "run_key")(parts["job"], parts["window_start"], parts["window_end"],
                                        parts["config"], parts["source"])


def _key_text(key: object) -> dict:
    if type(key) is not str:
        return {"type": type(key).__name__}
    return {"type": "str", "length": len(key), "lowercase hex": re.fullmatch("[0-9a-f]+", key)
            is not None}


@probe("run_key.same_run_same_key")
def same_run_same_key(namespace: dict, parts: dict, other: dict) -> dict:
    """`other` describes the same logical run differently (copied config, another zone...)."""
    first, again, second = _key(namespace, parts), _key(namespace, parts), _key(namespace, other)
    return {"key": _key_text(first),
            "called twice gives the same key": type(first) is str and first == again,
            "the other description gives the same key": type(first) is str and first == second}


@probe("run_key.one_change")
def one_change(namespace: dict, parts: dict, field: str, value: object) -> dict:
    changed = dict(parts, **{field: value})
    before, after = _key(namespace, parts), _key(namespace, changed)
    return {"key": _key_text(after), f"changing {field} changes the key":
            type(before) is str and type(after) is str and before != after}


# --------------------------------------------------------------------------- 2. runs table

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


# ------------------------------------------------------------------------- forcing the race

RACE_WAIT = 3.0  # seconds a racing connection waits for the others to have looked


class LookTogether:
    """Makes a race come out the same on every run, quiet machine or busy: each racing
    connection's first statement, when it only reads (a SELECT), waits after it ran until every
    racer has run its first statement. So code that looks before it writes (check, then insert)
    always meets the interleaving that breaks it, and code whose first statement writes (an
    INSERT, a BEGIN IMMEDIATE) never waits. Threads would otherwise decide it by timing."""

    def __init__(self, racers: int) -> None:
        self.racers = racers
        self.arrived = 0
        self.condition = threading.Condition()

    def connection(self, db: sqlite3.Connection) -> _RacingConnection:
        return _RacingConnection(db, self)

    def first_statement(self, sql: object) -> None:
        reads = isinstance(sql, str) and sql.lstrip().upper().startswith(("SELECT", "WITH"))
        with self.condition:
            self.arrived += 1
            self.condition.notify_all()
            if reads:
                self.condition.wait_for(lambda: self.arrived >= self.racers, timeout=RACE_WAIT)


class _RacingConnection:
    """A connection that reports its first statement to a `LookTogether`; anything else is the
    connection's own."""

    def __init__(self, db: sqlite3.Connection, race: LookTogether) -> None:
        self._db = db
        self._race: LookTogether | None = race

    def execute(self, sql, *args, **kwargs):
        cursor = self._db.execute(sql, *args, **kwargs)
        race, self._race = self._race, None
        if race is not None:
            race.first_statement(sql)
        return cursor

    def __getattr__(self, name: str):
        return getattr(self._db, name)

    def __enter__(self):
        self._db.__enter__()
        return self

    def __exit__(self, *exc):
        return self._db.__exit__(*exc)


@probe("runs_table.race")
def runs_race(namespace: dict, workers: int) -> dict:
    """`workers` threads, each with its own connection, acquire one new run at the same moment."""
    acquire_run = lookup(namespace, "acquire_run")
    connect = lookup(namespace, "connect")
    with scratch() as folder:
        world = World(namespace, folder)
        barrier = threading.Barrier(workers)
        race = LookTogether(workers)
        actions: list = []
        lock = threading.Lock()

        def worker(index: int) -> None:
            db = connect(world.path)
            try:
                barrier.wait(timeout=5)
                claim = acquire_run(race.connection(db), "k", BASE, 300.0,
                                    f"worker-{index + 1}")
                action = claim.get("action") if type(claim) is dict else "not a dict"
            except Exception as error:
                action = f"raised {type(error).__name__}"
            finally:
                db.close()
            with lock:
                actions.append(action)

        threads = [threading.Thread(target=worker, args=(i,), daemon=True) for i in range(workers)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=10)
        try:
            return {"actions": sorted(str(a) for a in actions),
                    "runs rows": count(world.db, "runs"),
                    "attempts rows": count(world.db, "attempts")}
        finally:
            world.close()


# --------------------------------------------------------------------------- 3. job flow

def _run(world: World, job, owner: str = "worker-1", crash_at: str | None = None):
    """Call run_job; return (result view, steps seen, states of the run at each artifact write)."""
    run_job = lookup(world.namespace, "run_job")
    crash = lookup(world.namespace, "Crash")
    steps: list = []
    states: list = []
    reader = sqlite3.connect(str(world.path), timeout=10.0, isolation_level=None)
    key = world.key(job)

    def on_step(name: str) -> None:
        steps.append(name)
        if name == crash_at:
            raise crash()

    def on_write(name: str) -> None:
        row = reader.execute("SELECT state FROM runs WHERE run_key = ?", (key,)).fetchone()
        states.append(row[0] if row else "no row")

    world.store.on_write = on_write
    try:
        result = result_view(run_job(world.db, job, world.source, world.store, world.clock,
                                     owner=owner, on_step=on_step), key)
    except crash:
        result = "crashed (simulated power cut)"
    finally:
        world.store.on_write = None
        reader.close()
    return result, steps, states


def _artifacts_check(world: World) -> list:
    rows = world.db.execute("SELECT name, sha256 FROM artifacts ORDER BY attempt, name").fetchall()
    checks = []
    for name, digest in rows:
        present = world.store.exists(name)
        matches = present and hashlib.sha256(world.store.read(name)).hexdigest() == digest
        checks.append([KEY_PATTERN.sub("<key>", name),
                       "matches the file" if matches else "file missing or different"])
    return checks


@probe("job_flow.scenario")
def job_flow_scenario(namespace: dict, runs: list, observe: list) -> dict:
    """Runs of run_job one after another, each described by a dict:
    hour (the window's start hour), script (what the fetches do), variant (which raw bytes),
    quotes_hour (the hour the feed's quotes belong to; the window's hour unless given),
    fail_on ("report"/"records": that artifact's write fails), settings (Job fields),
    advance (seconds the clock moves first), crash_at (a step where the process dies).
    `observe` picks what comes back, so that each case names one property."""
    with scratch() as folder:
        world = World(namespace, folder)
        seen: dict = {"results": [], "steps": [], "states at artifact writes": []}
        keys = []
        try:
            for run in runs:
                world.clock.advance(run.get("advance", 0))
                job = world.job(run.get("hour", 5), **run.get("settings", {}))
                keys.append(world.key(job))
                world.source.script = list(run.get("script", []))
                world.source.raw = variant(run.get("variant", "raw #1"),
                                           run.get("quotes_hour", run.get("hour", 5)))
                names = lookup(namespace, "artifact_names")(keys[-1])
                world.store.fail_on = {names[0 if kind == "report" else 1]
                                       for kind in run.get("fail_on", [])}
                result, steps, states = _run(world, job, run.get("owner", "worker-1"),
                                             run.get("crash_at"))
                seen["results"].append(result)
                seen["steps"].append(steps)
                seen["states at artifact writes"].append(states)
            label = labeller(list(dict.fromkeys(keys)))
            seen.update(world.tables(label))
            seen["files"] = file_names(world.store)
            seen["artifact hashes"] = _artifacts_check(world)
            seen["fetches"] = world.source.calls
            seen["pauses (s)"] = list(world.clock.slept)
            seen["clock (s after start)"] = (world.clock.now() - BASE).total_seconds()
            seen["report says raw_hash"] = _report_raw(world)
            return {name: seen[name] for name in observe}
        finally:
            world.close()


def _report_raw(world: World) -> list:
    found = []
    for name in world.store.names():
        if name.startswith("report-"):
            try:
                found.append(raw_label(json.loads(world.store.read(name))["raw_hash"]))
            except (ValueError, KeyError, TypeError):
                found.append("unreadable report")
    return found


# --------------------------------------------------------------------------- 4. proofs

@probe("proofs.stale_worker")
def proofs_stale_worker(namespace: dict, disk_full_on_waking: bool, observe: list) -> dict:
    """Worker 1 stalls after 'metrics' until its lease has expired; worker 2 (its own
    connection) recovers the run and finishes it; then worker 1 wakes up, with a full disk
    when `disk_full_on_waking`. Observes both results, the tables, the files and every write
    worker 1 still tried after the takeover."""
    run_job = lookup(namespace, "run_job")
    connect = lookup(namespace, "connect")
    with scratch() as folder:
        world = World(namespace, folder)
        job = world.job()
        key = world.key(job)
        names = lookup(namespace, "artifact_names")(key)
        recovery: list = []
        late_writes: list = []

        def stall_then_wake(step: str) -> None:
            if step != "metrics" or recovery:
                return
            world.clock.advance(float(job.lease_seconds) + 300)
            other = connect(world.path)
            try:
                recovery.append(result_view(run_job(other, job, world.source, world.store,
                                                    world.clock, owner="worker-2"), key))
            except Exception as error:  # worker 2's own failure is an observation too
                recovery.append(f"raised {type(error).__name__}")
            finally:
                other.close()
            if disk_full_on_waking:
                world.store.fail_on = set(names)
            world.store.on_write = lambda name: late_writes.append(KEY_PATTERN.sub("<key>", name))

        try:
            stale = result_view(run_job(world.db, job, world.source, world.store, world.clock,
                                        owner="worker-1", on_step=stall_then_wake), key)
        finally:
            world.store.fail_on, world.store.on_write = set(), None
        try:
            seen = {"worker-2 (recovers)": recovery[0] if recovery else "never ran",
                    "worker-1 (wakes up late)": stale,
                    "writes by worker-1 after the takeover": late_writes,
                    "files": file_names(world.store),
                    "artifact hashes": _artifacts_check(world),
                    "report says raw_hash": _report_raw(world)}
            seen.update(world.tables(labeller([key])))
            return {name: seen[name] for name in observe}
        finally:
            world.close()


@probe("proofs.fire_together")
def proofs_fire_together(namespace: dict, workers: int, observe: list) -> dict:
    """The student's fire_together on a fresh database. The winner's fetch is held until the
    other triggers have returned, so each of them meets a RUNNING row: the race is real, and
    the UNIQUE constraint alone decides its outcome."""
    fire_together = lookup(namespace, "fire_together")
    real_run_job = lookup(namespace, "run_job")
    with scratch() as folder:
        world = World(namespace, folder)
        world.source.gate = threading.Event()
        returned = []
        lock = threading.Lock()

        def counted_run_job(*args, **kwargs):
            try:
                return real_run_job(*args, **kwargs)
            finally:
                with lock:
                    returned.append(1)
                    if len(returned) >= workers - 1:
                        world.source.gate.set()

        race = LookTogether(workers)
        real_connect = lookup(namespace, "connect")

        def racing_connect(*args, **kwargs):
            return race.connection(real_connect(*args, **kwargs))

        job = world.job()
        namespace["run_job"] = counted_run_job
        namespace["connect"] = racing_connect
        try:
            results = fire_together(world.path, job, world.source, world.store, world.clock,
                                    workers)
        finally:
            namespace["run_job"] = real_run_job
            namespace["connect"] = real_connect
        key = world.key(job)
        try:
            views = ([result_view(r, key) for r in results] if type(results) is list
                     else f"not a list: {type(results).__name__}")
            seen = {
                "statuses": sorted(str(v.get("status")) if type(v) is dict else str(v)
                                   for v in views) if type(views) is list else views,
                "results": len(results) if type(results) is list else None,
                "fetches": world.source.calls,
                "files": file_names(world.store),
            }
            tables = world.tables(labeller([key]))
            for row in tables["runs"]:  # which thread wins is up to the race; that one wins is not
                row["owner"] = _any_worker(row["owner"], workers)
            for row in tables["attempts"]:
                row[2] = _any_worker(row[2], workers)
            seen.update(tables)
            return {name: seen[name] for name in observe}
        finally:
            world.close()


def _any_worker(owner: object, workers: int) -> object:
    names = {f"worker-{index + 1}" for index in range(workers)}
    return "one of the workers" if owner in names else owner


@probe("proofs.gap")
def proofs_gap(namespace: dict, last_end_hour: int, now_minutes: float, calls: int = 1,
               then_run: bool = False, last_end_minute: int = 0) -> dict:
    """catch_up after the machine was off from last_end until BASE + now_minutes (a last_end
    off the window boundary, last_end_minute > 0, must raise ValueError: that propagates)."""
    catch_up = lookup(namespace, "catch_up")
    with scratch() as folder:
        world = World(namespace, folder)
        try:
            last_end = datetime(2024, 3, 15, last_end_hour, last_end_minute, tzinfo=UTC)
            now = BASE + timedelta(minutes=now_minutes)
            plans: list[object] = []  # a plan as plain text, or a note on what came back
            for _ in range(calls):
                plan = catch_up(world.db, "psx_hourly", last_end, now)
                if type(plan) is not dict:
                    plans.append(f"not a dict: {type(plan).__name__}")
                    continue
                run = plan.get("run")
                gaps = plan.get("gaps")
                plans.append({
                    "run": None if run is None else window_text(run),
                    "gaps": [window_text(g) for g in gaps] if isinstance(gaps, list)
                    else f"not a list: {type(gaps).__name__}"})
            if then_run and type(plan) is dict and plan.get("run") is not None:
                start, end = plan["run"]
                job = lookup(namespace, "Job")("psx_hourly", start, end, dict(CONFIG))
                world.source.raw = variant("raw #1", start.astimezone(UTC).hour)
                world.clock.advance(now_minutes * 60)
                result, _, _ = _run(world, job)
                plans.append(result)
            gaps = world.db.execute("SELECT job, window_start, window_end, noted_at FROM gaps "
                                    "ORDER BY window_start").fetchall()
            return {"plans": plans,
                    "gaps table": [[job, seconds_after_base(s), seconds_after_base(e),
                                    seconds_after_base(noted)] for job, s, e, noted in gaps],
                    "runs rows": count(world.db, "runs"),
                    "metrics rows": count(world.db, "metrics"),
                    "records rows": count(world.db, "records")}
        finally:
            world.close()


# --------------------------------------------------------------------------- 5. scheduling

class TickingClock:
    """A clock that moves one second every time it is read."""

    def __init__(self, start: datetime):
        self.moment = start
        self.reads = 0
        self.slept: list = []

    def now(self) -> datetime:
        moment = self.moment
        self.moment += timedelta(seconds=1)
        self.reads += 1
        return moment

    def advance(self, seconds: float) -> None:
        self.moment += timedelta(seconds=seconds)

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.advance(seconds)


@probe("scheduling.tick")
def scheduling_tick(namespace: dict, start: datetime, zone: str, period_minutes: int) -> dict:
    """scheduled_tick with a clock that moves on every read and a run() that records its Job."""
    scheduled_tick = lookup(namespace, "scheduled_tick")
    clock = TickingClock(start)
    jobs = []

    def run(job):
        jobs.append(job)
        return {"status": "SUCCEEDED", "marker": 7}

    outcome = scheduled_tick(clock, "psx_hourly", dict(CONFIG), run, zone, period_minutes)
    seen_jobs = [{"name": getattr(job, "name", None),
                  "window": [moment_text(getattr(job, "window_start", None)),
                             moment_text(getattr(job, "window_end", None))],
                  "config": getattr(job, "config", None)} for job in jobs]
    if type(outcome) is not dict:
        return {"outcome": f"not a dict: {type(outcome).__name__}", "jobs run": seen_jobs}
    return {"fired_at": moment_text(outcome.get("fired_at")),
            "window": window_text(outcome.get("window")),
            "shown": outcome.get("shown"),
            "result": outcome.get("result"),
            "jobs run": seen_jobs}
