"""What the probes of notebook 07 (the safe scheduler) share.

Each probe builds a fresh SQLite database in a scratch folder of its own, drives the
notebook's functions with an injected clock and returns what it saw as plain data: rows of the
runs table, row counts, statuses, which raw input a run used. Times come back as seconds after
BASE and hashes as labels ("raw #1"), so that a failure message stays readable. The same probe
runs on the reference solution, and the grader compares the two observations.

The probes themselves live in one module per graded item, named after its suite: run_key,
runs_table, job_flow, proofs and scheduling. The tables below are read-only views, and the
guard puts back their contents too (guard.py), so notebook code cannot relabel a raw input for
the probes.
"""

from __future__ import annotations

import hashlib
import os
import random
import re
import select
import shutil
import signal
import sqlite3
import tempfile
import threading
from contextlib import contextmanager
from datetime import datetime, timedelta, timezone
from pathlib import Path
from time import monotonic, process_time
from types import MappingProxyType

from .. import wire
from ..backstop import Backstop, process_cpu, queued_seconds
from . import lookup

TYPE_CHECKING = False  # no import of typing in the sandbox at run time
if TYPE_CHECKING:
    from collections.abc import Callable

UTC = timezone.utc
BASE = datetime(2024, 3, 15, 6, 5, tzinfo=UTC)  # 11:05 in Karachi: the 06:00 UTC run fires
SOURCE_NAME = "psx-cache"
# The configuration of the probes' jobs, read-only: `config()` gives each job a copy of its
# own, so that nothing a cell or a job does to one changes what the next job is given.
CONFIG = MappingProxyType({"symbols": ("ENGRO", "HBL", "OGDC"), "metric": "vwap"})


def config() -> dict:
    return {"symbols": list(CONFIG["symbols"]), "metric": CONFIG["metric"]}


# --------------------------------------------------------------------------- data and helpers

def quotes(seed: int, minutes: int = 12, hour: int = 5) -> bytes:
    """A small deterministic quote file in the notebook's CSV format, for the window that
    starts at `hour` UTC (the same prices whatever the hour)."""
    start = datetime(2024, 3, 15, hour, 0, tzinfo=UTC)
    moments = [(start + timedelta(minutes=minute)).isoformat() for minute in range(minutes)]
    rows = _DRAWS.get((seed, minutes)) or _draw(seed, minutes)
    lines = ["symbol,ts,price,volume"]
    lines += [f"{symbol},{moments[minute]},{rest}" for symbol, minute, rest in rows]
    return ("\n".join(lines) + "\n").encode()


def _draw(seed: int, minutes: int) -> tuple[tuple[str, int, str], ...]:
    """The rows of `quotes` without their times: (symbol, minute, "price,volume")."""
    rng = random.Random(seed)
    rows = []
    for symbol, price in (("ENGRO", 318.4), ("HBL", 97.15), ("OGDC", 121.6)):
        for minute in range(minutes):
            price = round(price * (1 + rng.gauss(0, 0.002)), 2)
            rows.append((symbol, minute, f"{price:.2f},{rng.randrange(100, 9000, 50)}"))
    return tuple(rows)


# The draws of the two quote files the probes use, made once (LABELS below needs them for
# every hour of the day) and, like the tables below, read-only.
_DRAWS = MappingProxyType({(seed, 12): _draw(seed, 12) for seed in (1, 2)})


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
VARIANTS = MappingProxyType({label: variant(label) for label in VARIANT_NAMES})
LABELS = MappingProxyType({hashlib.sha256(variant(label, hour)).hexdigest(): label
                          for label in VARIANT_NAMES for hour in range(24)})


def raw_label(value: object) -> object:
    if value is None:
        return None
    if type(value) is not str:
        return f"not a str: {type(value).__name__}"
    return LABELS.get(value, "a hash of something else")


# Where the probes' scratch folders go, fixed when the probes load: tempfile's own choice of
# folder and of names is data that notebook code could change (to predict the next folder).
SCRATCH = Path(tempfile.gettempdir())


@contextmanager
def scratch():
    folder = SCRATCH / f"capstone-{os.urandom(8).hex()}"
    folder.mkdir(mode=0o700)
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
                                             config(), **settings)

    def key(self, job) -> str:
        return lookup(self.namespace, "run_key")(job.name, job.window_start, job.window_end,
                                                 job.config, SOURCE_NAME)

    def tables(self, label) -> dict:
        return {"runs": runs_rows(self.db, label), "attempts": attempt_rows(self.db, label),
                "rows": {table: count(self.db, table)
                         for table in ("raw_inputs", "records", "metrics", "artifacts", "gaps")}}

    def close(self) -> None:
        self.db.close()



# ------------------------------------------------------------------------- forcing the race

# What a statement's first word is preceded by (_Race.kind): blanks, comments, parentheses.
_SQL_SKIP = re.compile(r"(?:\s+|--[^\n]*(?:\n|$)|/\*.*?(?:\*/|$)|\()", re.DOTALL)
_SQL_WRITES = frozenset({"INSERT", "UPDATE", "DELETE", "REPLACE", "CREATE", "DROP", "ALTER",
                         "COMMIT", "END", "ROLLBACK", "RELEASE", "VACUUM", "REINDEX", "ANALYZE",
                         "ATTACH", "DETACH"})

# Seconds a racing connection that looked waits for the others to look, while this process
# does not compute (a racer blocked on the code's own lock never looks); while the racers still
# on their way compute, it waits on, as a Backstop decides (up to three times as long).
RACE_WAIT = 3.0


RACE_BUSY_MS = 40_000  # a racing connection's lock wait: far above any wait a busy machine adds


def patient(db):
    """`db` waiting up to RACE_BUSY_MS for a lock instead of the notebook's 10 s: a lock holder
    that a saturated machine deschedules for a while must not make another racer's write fail
    (which would change what a probe observes), yet a lock held for good still ends in an error
    before the case's wall-clock backstop."""
    try:
        db.execute(f"PRAGMA busy_timeout = {RACE_BUSY_MS}")
    except Exception:  # noqa: S110 (not a connection: the probe observes what the code does)
        pass
    return db


class _Race:
    """What both kinds of forced race share: the statements of each racing connection are
    watched (watch_statements), and a racer that returns arrives without waiting."""

    def __init__(self, racers: int) -> None:
        self.racers = racers
        self.watches: dict[int, list[_FirstStatement]] = {}  # by thread
        self.unwatched: str | None = None  # why a racer's statements went unseen, if they did

    def connection(self, db: sqlite3.Connection) -> sqlite3.Connection:
        return watch_statements(db, self)

    def finished(self, given: bool = False) -> str | None:
        """This thread's racer has returned: one that never ran a second statement has
        arrived too (so no one waits for it), without waiting for anyone. Returns why the race
        could not watch this racer (it turned off the trace callback, or, with `given` (the
        probe gave it its connection), neither read nor wrote through that connection), or
        None; the same text stays in `unwatched`."""
        why = None
        for watch in self.watches.get(threading.get_ident(), ()):
            watch.arrive(wait=False)
            why = why or watch.unwatched(given)
        if why is not None:
            self.unwatched = why
        return why

    @staticmethod
    def kind(sql: object) -> str:
        """What a statement does to the race, by its first word (after comments and opening
        parentheses): "write" (INSERT, UPDATE, DELETE, REPLACE, BEGIN IMMEDIATE or EXCLUSIVE,
        COMMIT, a CREATE without IF NOT EXISTS, ...), "neutral" (a deferred BEGIN, PRAGMA,
        SAVEPOINT, CREATE ... IF NOT EXISTS: no table read or written, no lock another racer
        waits for) or "read" (SELECT, WITH, VALUES and anything else)."""
        if not isinstance(sql, str):
            return "read"
        text = sql
        while True:
            skipped = _SQL_SKIP.match(text)
            if skipped is None or not skipped.end():
                break
            text = text[skipped.end():]
        words = text.upper().split(None, 8)[:8]
        if not words:
            return "neutral"
        first = words[0]
        if first == "BEGIN":
            return "write" if {"IMMEDIATE", "EXCLUSIVE"} & set(words[1:2]) else "neutral"
        if first in ("PRAGMA", "SAVEPOINT") or (
                first == "CREATE" and "IF NOT EXISTS" in " ".join(words)):
            return "neutral"
        return "write" if first in _SQL_WRITES else "read"

    def reads(self, sql: object) -> bool:
        return self.kind(sql) == "read"

    def first_statement(self, sql: object, wait: bool = True) -> None:
        raise NotImplementedError


class LookTogether(_Race):
    """Makes a race come out the same on every run, quiet machine or busy: a racing connection
    that read (a SELECT) before its first write waits, as that write starts, until every racer
    has reached its first write (or returned). So code that looks before it writes (check,
    then insert) always meets the interleaving that breaks it, and code whose first statement
    writes (an INSERT, a BEGIN IMMEDIATE) never waits. Threads would otherwise decide
    it by timing. The wait ends by the clock only when the racers still on their way are not
    computing (they wait for a lock of the code's own): racers slowed down by a busy machine
    are waited for."""

    def __init__(self, racers: int) -> None:
        super().__init__(racers)
        self.arrived = 0
        self.condition = threading.Condition()

    def first_statement(self, sql: object, wait: bool = True) -> None:
        with self.condition:
            self.arrived += 1
            self.condition.notify_all()
            if not self.reads(sql) or not wait:
                return
            backstop = Backstop(RACE_WAIT, process_time, queued=lambda: queued_seconds("self"))
            while self.arrived < self.racers:
                left = backstop.left()
                if left > 0:
                    self.condition.wait(left)
                elif backstop.passed():
                    return


class LookTogetherApart(_Race):
    """`LookTogether` for racers in processes of their own (forked, so that nothing in Python is
    shared between them: a lock or a cache of the code's own cannot decide who is first; only
    the database can, as the notebook asks). A racer says it ran its first statement with a
    byte on every other racer's pipe; one whose first statement read waits for the others'
    bytes, as long as a Backstop over all the racers' CPU time (/proc) allows."""

    def __init__(self, racers: int) -> None:
        super().__init__(racers)
        self.pipes = tuple(os.pipe() for _ in range(racers))
        self.index = 0  # this process's racer
        self.pids: tuple[int, ...] = ()  # every racer's process, once the race starts

    def first_statement(self, sql: object, wait: bool = True) -> None:
        for other, (_, writer) in enumerate(self.pipes):
            if other != self.index:
                os.write(writer, b"x")
        if not self.reads(sql) or not wait:
            return
        mine, heard = self.pipes[self.index][0], 0
        backstop = Backstop(RACE_WAIT, self.cpu, queued=lambda: sum(map(queued_seconds, self.pids)))
        while heard < self.racers - 1:
            left = backstop.left()
            if left > 0:
                if select.select([mine], [], [], left)[0]:
                    heard += len(os.read(mine, 64))
            elif backstop.passed():
                return

    def cpu(self) -> float | None:
        """CPU seconds of every racer so far; None when one cannot be read (no /proc)."""
        total = 0.0
        for pid in self.pids:
            used = process_cpu(pid)
            if used is None:
                return None
            total += used
        return total

    def close(self) -> None:
        for pipe in self.pipes:
            for end in pipe:
                os.close(end)


def race_in_processes(racers: int, attempt, start) -> list:
    """Run `attempt(index)` for racers 1.. in forked processes and racer 0 here, all released
    at once after `start()` (which may open the database: the racers' processes are forked
    before, so that none inherits a connection). Returns the answers (strings) of those that
    answered within RACE_JOIN seconds; a racer's process still running then is killed."""
    gates = [os.pipe() for _ in range(1, racers)]
    replies = [os.pipe() for _ in range(1, racers)]
    children = []
    for index in range(1, racers):
        pid = os.fork()
        if pid == 0:  # a racer: wait for the start, answer on its pipe, never return
            try:
                os.close(replies[index - 1][0])
                ready = b""
                while not ready.endswith(b"\n"):
                    part = os.read(gates[index - 1][0], 4096)
                    if not part:
                        break
                    ready += part
                if ready.endswith(b"\n"):
                    answer = str(attempt(index, tuple(int(pid) for pid in ready.split())))
                    os.write(replies[index - 1][1], answer[:500].encode("utf-8", "replace")
                             + b"\n")
            finally:
                os._exit(0)
        children.append(pid)
    for gate, reply in zip(gates, replies, strict=True):
        os.close(gate[0])
        os.close(reply[1])
    answers, waiting = [], {reply[0]: b"" for reply in replies}
    try:
        start()
        pids = (os.getpid(), *children)
        for gate in gates:
            os.write(gate[1], " ".join(map(str, pids)).encode() + b"\n")
        answers.append(str(attempt(0, pids)))
        deadline = monotonic() + RACE_JOIN
        while waiting and monotonic() < deadline:
            readable = select.select(list(waiting), [], [], max(0.0, deadline - monotonic()))[0]
            for handle in readable:
                part = os.read(handle, 4096)
                waiting[handle] += part
                if not part or waiting[handle].endswith(b"\n"):
                    text = waiting.pop(handle)
                    if text.endswith(b"\n"):
                        answers.append(text[:-1].decode("utf-8", "replace"))
                    os.close(handle)
    finally:
        for handle in waiting:
            os.close(handle)
        for gate in gates:
            os.close(gate[1])
        for pid in children:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
            try:
                os.waitpid(pid, 0)
            except ChildProcessError:
                pass
    return answers


RACE_STALL = 20.0  # seconds a held fetch waits without any racer moving before it goes anyway
# Seconds a probe waits for all its racers to return: above any lock wait (RACE_BUSY_MS), so a
# racer that a busy machine descheduled is waited for, and below the wall-clock backstop of a
# race case (10 s of CPU: 50 s), which stops code that never returns.
RACE_JOIN = 45.0


class TakeTurns:
    """Stands in for the notebook's `QuoteSource.gate` in a race, so that no fetch is let go by
    the clock. A fetch waits until `set` (the other racers have returned). When every racer
    that has not returned waits at a fetch (code that runs the work a second time), the one
    that came first goes on alone, and the next only once that one's `run_job` has returned
    (`returned`). The notebook's own gate lets every held fetch go after 2 s, all at once,
    and what the duplicates then do to each other would depend on the machine's load."""

    def __init__(self, racers: int) -> None:
        self.racers = racers
        self.finished = 0
        self.opened = False
        self.queue: list[int] = []
        self.turn: int | None = None
        self.condition = threading.Condition()

    def set(self) -> None:
        with self.condition:
            self.opened = True
            self.condition.notify_all()

    def is_set(self) -> bool:
        return self.opened

    def returned(self) -> None:
        """One racer's run_job has returned (or raised)."""
        with self.condition:
            self.finished += 1
            if self.turn == threading.get_ident():
                self.turn = None
            self.condition.notify_all()

    def wait(self, timeout: float | None = None) -> bool:
        me = threading.get_ident()
        with self.condition:
            self.queue.append(me)
            self.condition.notify_all()
            try:
                while not self.opened and self.turn != me:
                    if self.turn is None and self.queue[0] == me \
                            and len(self.queue) + self.finished >= self.racers:
                        self.turn = me
                        break
                    if not self.condition.wait(RACE_STALL):
                        break  # a racer is stuck elsewhere: the case's limits end it
            finally:
                self.queue.remove(me)
            return True


class _FirstStatement:
    """The trace callback of one racing connection: it sees every statement the connection runs,
    however the code runs it (the connection's execute, a cursor's, executescript), so code
    cannot step around it as it could around a wrapper. A statement is traced as it starts, so
    when the racer's first write starts, every statement before it has run: the racer then
    arrives, and waits when it read before (_Race.kind), or arrives when it returns without
    having written. However many reads come first (a SELECT 1 in front of the real check), all
    of them run before any racer writes."""

    def __init__(self, race: _Race, db: sqlite3.Connection) -> None:
        self.race = race
        self.db = db
        self.first: object = None
        self.count = 0  # statements from the first one that is not neutral (_Race.neutral)
        self.seen = 0  # every statement
        self.arrived = False

    def __call__(self, sql: object) -> None:
        self.seen += 1
        if self.arrived:
            return
        kind = self.race.kind(sql)
        if kind == "neutral":
            return
        self.count += 1
        if self.count == 1:
            self.first = sql
        if kind == "write":  # its first write: as it starts, every read before it has run
            self.arrive(wait=True)

    def arrive(self, wait: bool) -> None:
        if not self.arrived:
            self.arrived = True
            self.race.first_statement(self.first, wait=wait)

    def unwatched(self, given: bool) -> str | None:
        """After the racer returned: why its statements could not be watched, or None. A
        statement of the probe's own must reach the callback (code that turned it off, or
        put its own in place, is not raced); and with `given`, the racer must have read or
        written the tables through the connection it was given (one that did so through
        another connection is not raced)."""
        if not still_traced(self.db, lambda: self.seen):
            return TRACE_OFF
        if given and self.count == 0:
            return "read and wrote nothing through the connection it was given"
        return None


TRACE_OFF = "turned off the trace callback through which the hidden test watches its statements"


def still_traced(db, seen: Callable[[], int]) -> bool:
    """Whether a statement of the probe's own on `db` still reaches its trace callback, whose
    count `seen` reads. A connection the code closed counts as traced: what it ran before
    was watched."""
    before = seen()
    try:
        db.execute("SELECT 1").fetchall()
    except Exception:  # noqa: S110 (closed by the code)
        return True
    return seen() != before


def watch_statements(db, race: _Race):
    """`db` with `race` watching its statements (through SQLite's trace callback)."""
    watch = _FirstStatement(race, db)
    try:
        db.set_trace_callback(watch)
    except Exception:  # noqa: S110 (not a connection: the probe observes what the code does)
        return db
    race.watches.setdefault(threading.get_ident(), []).append(watch)
    return db


def observe_run(world: World, job, owner: str = "worker-1", crash_at: str | None = None):
    """Call run_job; return (result view, steps seen, states of the run at each artifact write,
    the result's keys, sorted)."""
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
        returned = run_job(world.db, job, world.source, world.store, world.clock, owner=owner,
                           on_step=on_step)
        result = result_view(returned, key)
        keys = (sorted(str(name) for name in returned) if type(returned) is dict
                else f"not a dict: {type(returned).__name__}")
    except crash:
        result = keys = "crashed (simulated power cut)"
    finally:
        world.store.on_write = None
        reader.close()
    return result, steps, states, keys


def artifacts_check(world: World) -> list:
    rows = world.db.execute("SELECT name, sha256 FROM artifacts ORDER BY attempt, name").fetchall()
    checks = []
    for name, digest in rows:
        present = world.store.exists(name)
        matches = present and hashlib.sha256(world.store.read(name)).hexdigest() == digest
        checks.append([KEY_PATTERN.sub("<key>", name),
                       "matches the file" if matches else "file missing or different"])
    return checks


def report_raw(world: World) -> list:
    found = []
    for name in world.store.names():
        if name.startswith("report-"):
            try:
                # wire.loads: a scanner built in C when the probes load (json.loads would use
                # json._default_decoder, which notebook code can replace)
                found.append(raw_label(wire.loads(world.store.read(name))["raw_hash"]))
            except (ValueError, KeyError, TypeError, RecursionError):
                found.append("unreadable report")
    return found


