"""Probes for notebook 07's proofs: a stale worker, triggers that fire together, a gap to
catch up."""

from __future__ import annotations

import sqlite3
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta

from . import lookup, probe
from ._capstone import (
    BASE,
    KEY_PATTERN,
    TRACE_OFF,
    UTC,
    LookTogether,
    TakeTurns,
    World,
    artifacts_check,
    config,
    count,
    file_names,
    labeller,
    observe_run,
    patient,
    report_raw,
    result_view,
    scratch,
    seconds_after_base,
    still_traced,
    variant,
    window_text,
)


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
                    "artifact hashes": artifacts_check(world),
                    "report says raw_hash": report_raw(world)}
            seen.update(world.tables(labeller([key])))
            return {name: seen[name] for name in observe}
        finally:
            world.close()


def _fire_with(fire_together, namespace: dict, world: World, job, workers: int,
               **stand_ins) -> object:
    """fire_together on `world`'s database, with `stand_ins` in place of the notebook's
    functions of those names while it runs (it calls them by name), put back after."""
    real = {name: lookup(namespace, name) for name in stand_ins}
    namespace.update(stand_ins)
    try:
        return fire_together(world.path, job, world.source, world.store, world.clock, workers)
    finally:
        namespace.update(real)


@probe("proofs.fire_together")
def proofs_fire_together(namespace: dict, workers: int, observe: list) -> dict:
    """The student's fire_together on a fresh database. The winner's fetch is held until the
    other triggers have returned, so each of them meets a RUNNING row: the race is real, and
    the UNIQUE constraint alone decides its outcome. Fetches that duplicates make go one at
    a time (TakeTurns), never by the clock."""
    fire_together = lookup(namespace, "fire_together")
    real_run_job = lookup(namespace, "run_job")
    with scratch() as folder:
        world = World(namespace, folder)
        gate = world.source.gate = TakeTurns(workers)
        returned = []
        lock = threading.Lock()

        def counted_run_job(*args, **kwargs):
            try:
                return real_run_job(*args, **kwargs)
            finally:
                race.finished()
                with lock:
                    returned.append(1)
                    if len(returned) >= workers - 1:
                        gate.set()
                gate.returned()

        race = LookTogether(workers)
        real_connect = lookup(namespace, "connect")

        def racing_connect(*args, **kwargs):
            return race.connection(patient(real_connect(*args, **kwargs)))

        job = world.job()
        results = _fire_with(fire_together, namespace, world, job, workers,
                             run_job=counted_run_job, connect=racing_connect)
        key = world.key(job)
        try:
            if race.unwatched is not None:  # not raced: what came back shows nothing
                return {name: race.unwatched for name in observe}
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


@probe("proofs.fire_together_one_raises")
def proofs_fire_together_one_raises(namespace: dict, workers: int) -> dict:
    """The student's fire_together on a fresh database, with a stand-in for run_job whose
    first call raises (RuntimeError) and whose later calls run the real run_job: one trigger
    runs, so there is no race to force. What came back, sorted (which thread called first is
    up to the threads): a result's status, or "None"."""
    fire_together = lookup(namespace, "fire_together")
    real_run_job = lookup(namespace, "run_job")
    with scratch() as folder:
        world = World(namespace, folder)
        lock = threading.Lock()
        calls: list[int] = []

        def failing_once(*args, **kwargs):
            with lock:
                calls.append(1)
                first = len(calls) == 1
            if first:
                raise RuntimeError("run_job failed in this thread")
            return real_run_job(*args, **kwargs)

        job = world.job()
        results = _fire_with(fire_together, namespace, world, job, workers,
                             run_job=failing_once)
        try:
            if type(results) is not list:
                return {"what came back": f"not a list: {type(results).__name__}"}
            key = world.key(job)
            views = ["None" if result is None else result_view(result, key) for result in results]
            return {"what came back": sorted(
                str(view.get("status")) if type(view) is dict else str(view) for view in views)}
        finally:
            world.close()


@probe("proofs.fire_together_order")
def proofs_fire_together_order(namespace: dict, workers: int) -> dict:
    """The student's fire_together with a stand-in for run_job that finishes the triggers in
    reverse order: worker-k returns only after worker-(k+1)'s result is in place (waiting at
    most WAIT seconds for each, so code that triggers one after the other still ends). A
    result is in place once its thread has ended or, for a call a thread pool of
    concurrent.futures runs, once the pool has set its future (the pool's threads outlive
    their tasks). Each stand-in returns {"status": "SUCCEEDED", "owner": its owner}. What
    came back: each result's owner, in the order of the list."""
    fire_together = lookup(namespace, "fire_together")
    owners = [f"worker-{index + 1}" for index in range(workers)]
    entered = [threading.Event() for _ in range(workers)]
    returned = [threading.Event() for _ in range(workers)]
    threads: list[object] = [None] * workers
    futures: list[object] = [None] * workers

    def reverse_order(*args, **kwargs):
        owner = kwargs["owner"] if "owner" in kwargs else args[5] if len(args) > 5 else None
        index = owners.index(owner) if type(owner) is str and owner in owners else -1
        if index >= 0:
            threads[index] = threading.current_thread()
            futures[index] = getattr(_task, "future", None)
            entered[index].set()
            later = index + 1
            if later < workers and entered[later].wait(WAIT):
                returned[later].wait(WAIT)
                _in_place(threads[later], futures[later])
            returned[index].set()
        return {"status": "SUCCEEDED", "owner": owner}

    with scratch() as folder:
        world = World(namespace, folder)
        try:
            with _noting_futures():
                results = _fire_with(fire_together, namespace, world, world.job(), workers,
                                     run_job=reverse_order)
            if type(results) is not list:
                return {"owners, in the order returned": f"not a list: {type(results).__name__}"}
            return {"owners, in the order returned": [
                str(result.get("owner")) if type(result) is dict else
                "None" if result is None else f"a {type(result).__name__}" for result in results]}
        finally:
            world.close()


_task = threading.local()  # in a pool's thread, while it runs a call: the call's future


@contextmanager
def _noting_futures() -> Iterator[None]:
    """While open, each call a concurrent.futures thread pool runs notes its future in `_task`
    (for the pool's threads, which outlive their calls, that future is what tells a call's
    result is in place). Does nothing when the notebook has not imported the pools (so no
    pool runs, unless fire_together imports one itself: then the wait is for its threads to
    end, which is slower but as sure)."""
    pools = sys.modules.get("concurrent.futures.thread")
    original = getattr(getattr(pools, "_WorkItem", None), "run", None)
    if original is None:
        yield
        return

    def run(self, *args, **kwargs):
        _task.future = getattr(self, "future", None)
        try:
            return original(self, *args, **kwargs)
        finally:
            _task.future = None

    pools._WorkItem.run = run  # type: ignore[union-attr]
    try:
        yield
    finally:
        pools._WorkItem.run = original  # type: ignore[union-attr]


def _in_place(thread: object, future: object) -> bool:
    """Wait (at most WAIT seconds) until the result of a call that has returned is in place:
    its pool's future is set, or else its thread has ended. Whether it is."""
    pools = sys.modules.get("concurrent.futures._base")
    if pools is not None and isinstance(future, pools.Future):
        done = threading.Event()
        future.add_done_callback(lambda _: done.set())
        return done.wait(WAIT)
    if isinstance(thread, threading.Thread) and thread is not threading.current_thread():
        thread.join(WAIT)
        return not thread.is_alive()
    return False


WAIT = 3.0  # seconds a stand-in waits for the trigger after it (a busy machine's too)


def _any_worker(owner: object, workers: int) -> object:
    names = {f"worker-{index + 1}" for index in range(workers)}
    return "one of the workers" if owner in names else owner


@probe("proofs.gap")
def proofs_gap(namespace: dict, last_end_hour: int, now_minutes: float, calls: int = 1,
               then_run: bool = False, last_end_minute: int = 0,
               naive_last_end: bool = False) -> dict:
    """catch_up after the machine was off from last_end until BASE + now_minutes (a last_end
    off the window boundary, last_end_minute > 0, or without a time zone, naive_last_end,
    must raise ValueError: that propagates)."""
    catch_up = lookup(namespace, "catch_up")
    with scratch() as folder:
        world = World(namespace, folder)
        try:
            last_end = datetime(2024, 3, 15, last_end_hour, last_end_minute,
                                tzinfo=None if naive_last_end else UTC)
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
                job = lookup(namespace, "Job")("psx_hourly", start, end, config())
                world.source.raw = variant("raw #1", start.astimezone(UTC).hour)
                world.clock.advance(now_minutes * 60)
                result, _, _, _ = observe_run(world, job)
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


class _Fence:
    """Worker 1's run, watched from its step 'metrics' on: every statement its connection
    starts (SQLite's trace callback, which fires before the statement runs) and every file it
    writes or removes is a moment, and at each one the probe asks whether another worker could
    take the run over right then: whether a connection of its own gets the write lock at once
    (BEGIN IMMEDIATE, without waiting; rolled back). Nothing here waits or depends on timing.

    With `takeover_at` (a moment's index), worker 2 recovers the run at that moment, in this
    thread and with its own connection, after the clock has passed worker 1's lease."""

    def __init__(self, namespace: dict, world: World, job, key: str,
                 takeover_at: int | None) -> None:
        self.namespace, self.world, self.job, self.key = namespace, world, job, key
        self.takeover_at = takeover_at
        self.rival = sqlite3.connect(str(world.path), timeout=0, isolation_level=None)
        self.moments: list[tuple[str, bool]] = []  # (what, could another worker take over)
        self.armed = False
        self.busy = False  # worker 2 is at work: its own statements and files are not watched
        self.recovery: list = []
        self.late: list[str] = []  # worker 1's file operations after the takeover
        self.traced = 0

    def could_take_over(self) -> bool:
        try:
            self.rival.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError:
            return False
        self.rival.execute("ROLLBACK")
        return True

    def moment(self, what: str) -> None:
        if not self.armed or self.busy:
            return
        index = len(self.moments)
        self.moments.append((what, self.could_take_over()))
        if index == self.takeover_at:
            self.take_over()

    def take_over(self) -> None:
        world, store = self.world, self.world.store
        self.busy = True
        full, store.fail_on = store.fail_on, set()  # worker 2's disk is fine
        world.clock.advance(float(self.job.lease_seconds) + 300)
        other = lookup(self.namespace, "connect")(world.path)
        try:
            self.recovery.append(result_view(lookup(self.namespace, "run_job")(
                other, self.job, world.source, store, world.clock, owner="worker-2"), self.key))
        except Exception as error:  # worker 2's own failure is an observation too
            self.recovery.append(f"raised {type(error).__name__}")
        finally:
            other.close()
            store.fail_on = full
            self.busy = False

    def statement(self, sql: object) -> None:
        self.traced += 1
        self.moment("statement")

    def file(self, operation: str, name: str) -> None:
        self.moment(operation)
        if self.recovery and not self.busy:
            self.late.append(f"{operation} {KEY_PATTERN.sub('<key>', name)}")

    def step(self, name: str) -> None:
        if name == "metrics":
            self.armed = True
        self.moment(f"step {name}")

    def last_chance_before(self, operation: str) -> int | None:
        """The last moment up to worker 1's first `operation` (sampled as it starts) at which
        another worker could take the run over; None when there was none."""
        first = next((index for index, (what, _) in enumerate(self.moments)
                      if what == operation), len(self.moments))
        free = [index for index, (_, could) in enumerate(self.moments[:first + 1]) if could]
        return free[-1] if free else None

    def close(self) -> None:
        self.rival.close()


def _fenced_run(namespace: dict, folder, operation: str, takeover_at: int | None):
    """Worker 1's run_job with its moments watched (_Fence); with `operation` "remove", its
    first artifact write fails (a full disk). Returns (world, fence, worker 1's result view,
    why the moments could not be watched or None); the caller closes both."""
    world = World(namespace, folder)
    job = world.job()
    key = world.key(job)
    fence = _Fence(namespace, world, job, key, takeover_at)
    store = world.store
    if operation == "remove":
        store.fail_on = {lookup(namespace, "artifact_names")(key)[0]}
    real_remove = store.remove

    def remove(name: str) -> None:
        fence.file("remove", name)
        real_remove(name)

    store.on_write = lambda name: fence.file("write", name)
    store.remove = remove
    world.db.set_trace_callback(fence.statement)
    try:
        worker_1 = result_view(lookup(namespace, "run_job")(
            world.db, job, world.source, store, world.clock, owner="worker-1",
            on_step=fence.step), key)
    except Exception as error:
        worker_1 = f"raised {type(error).__name__}"
    finally:
        store.on_write, store.fail_on = None, set()
        del store.remove
    fence.armed = False
    why = None if still_traced(world.db, lambda: fence.traced) else TRACE_OFF
    world.db.set_trace_callback(None)
    return world, fence, worker_1, why


@probe("proofs.takeover_at_the_fence")
def proofs_takeover_at_the_fence(namespace: dict, operation: str, observe: list) -> dict:
    """Worker 2 takes the run over at the last moment before worker 1's first file `operation`
    ("write", or "remove" after a failed write) at which it could: when worker 1 checks
    holds_run and does the file operation inside one transaction, that moment comes before
    the check, and worker 1 must then write or remove nothing. The run is replayed: the first
    run (no takeover) finds the moment, the second (a fresh database, the same injected clock
    and data, so the same steps up to there) takes the run over at it."""
    with scratch() as folder:
        world, fence, _, why = _fenced_run(namespace, folder, operation, None)
        takeover_at = fence.last_chance_before(operation)
        first = fence.moments
        fence.close()
        world.close()
    if why is not None:
        return {name: why for name in observe}
    with scratch() as folder:
        world, fence, worker_1, why = _fenced_run(namespace, folder, operation, takeover_at)
        try:
            if why is None and takeover_at is not None \
                    and fence.moments[:takeover_at + 1] != first[:takeover_at + 1]:
                why = "worker-1 took other steps when its run was repeated on the same input"
            if why is not None:
                return {name: why for name in observe}
            seen = {"worker-2 (takes over)": fence.recovery[0] if fence.recovery
                    else "never ran: no moment before worker-1's first file operation let it",
                    "worker-1 (taken over)": worker_1,
                    "file operations by worker-1 after the takeover": fence.late,
                    "files": file_names(world.store),
                    "artifact hashes": artifacts_check(world)}
            return {name: seen[name] for name in observe}
        finally:
            fence.close()
            world.close()
