"""Notebook 07 (safe scheduler): the corpus keeps the bugs the issue names (tests/test_fairness.py
grades it), the notebook's backoff_delays is notebook 05's, the run key and
catch_up agree with independent oracles, the notebook's APScheduler settings behave as promised
in a real scheduler, and the replayed day behind the timeline figure is the one described."""

import hashlib
import json
import random
import re
import threading
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path
from zoneinfo import ZoneInfo

import fixtures
import nbformat
import pytest
from apscheduler.events import EVENT_JOB_EXECUTED, EVENT_JOB_MAX_INSTANCES, EVENT_JOB_MISSED
from apscheduler.schedulers.background import BackgroundScheduler
from apscheduler.triggers.cron import CronTrigger
from hypothesis import given, settings
from hypothesis import strategies as st

from autograder import reference
from autograder.reference import SOLUTIONS, nbgrader_meta
from autograder.rubric import exercise_for

EXERCISE = exercise_for("07_safe_scheduler")
CORPUS = Path(__file__).parent / "corpus" / "wrong" / "07_safe_scheduler"
UTC = timezone.utc
ZONES = ["UTC", "Asia/Karachi", "America/New_York", "Europe/London", "Asia/Kolkata",
         "Australia/Lord_Howe"]


@pytest.fixture(scope="module")
def ns() -> dict:
    return reference.namespace(EXERCISE)


def test_the_corpus_covers_the_bugs_the_issue_names():
    names = {path.stem for path in CORPUS.glob("*.py")}
    assert {"key_ignores_config_hash", "duplicate_runs_twice", "stale_lease_never_recovered",
            "deleted_first_attempt", "backfilled_gap", "succeeded_before_artifacts",
            "validation_retried", "unfenced_artifacts", "stale_quotes_published"} <= names


def answer_cell(path: Path, grade_id: str) -> str:
    notebook = nbformat.read(path, as_version=4)
    return next(cell.source for cell in notebook.cells
                if nbgrader_meta(cell).get("grade_id") == grade_id)


def test_backoff_delays_is_a_copy_of_notebook_05():
    ours = answer_cell(SOLUTIONS / EXERCISE.path, "answer_backoff_delays")
    theirs = answer_cell(SOLUTIONS / exercise_for("05_backoff_delays").path,
                         "answer_backoff_delays")
    assert ours == theirs, "notebook 07's backoff_delays drifted from notebook 05's: rebuild 07"


def test_the_story_gives_its_karachi_times_in_utc_too():
    """The introduction tells the day in Karachi time while every row and window is UTC: it
    says the first trouble's time in UTC as well, and zoneinfo agrees with it."""
    notebook = nbformat.read(fixtures.RELEASE / EXERCISE.path, as_version=4)
    story = " ".join(notebook.cells[0].source.split())
    assert "on Friday 15 March 2024 (Karachi time)" in story
    pairs = re.findall(r"(\d\d:\d\d) \((\d\d:\d\d) UTC\)", story)
    assert pairs, "the introduction gives no Karachi time in UTC"
    for karachi, utc in pairs:
        hour, minute = map(int, karachi.split(":"))
        moment = datetime(2024, 3, 15, hour, minute, tzinfo=ZoneInfo("Asia/Karachi"))
        assert f"{moment.astimezone(UTC):%H:%M}" == utc, f"{karachi} in Karachi is not {utc} UTC"


# --------------------------------------------------------------------------- oracles

def oracle_key(job, start, end, config, source) -> str:
    def canonical(value) -> bytes:
        return json.dumps(value, sort_keys=True, separators=(",", ":")).encode()
    parts = {"job": job, "window_start": start.astimezone(UTC).isoformat(),
             "window_end": end.astimezone(UTC).isoformat(),
             "config_hash": hashlib.sha256(canonical(config)).hexdigest(), "source": source}
    return hashlib.sha256(canonical(parts)).hexdigest()


def test_run_key_matches_an_independent_oracle_and_never_collides(ns):
    rng = random.Random(7)
    seen: dict[str, tuple] = {}
    for _ in range(1500):
        zone = ZoneInfo(rng.choice(ZONES))
        start = datetime(2024, 1, 1, tzinfo=UTC) + timedelta(minutes=15 * rng.randrange(40000))
        end = start + timedelta(minutes=rng.choice([15, 60, 1440]))
        config = {rng.choice("abcde"): rng.choice([1, 2.5, "x", None, [1, 2], {"k": 1}])
                  for _ in range(rng.randrange(4))}
        job, source = rng.choice(["psx_hourly", "psx_daily"]), rng.choice(["cache", "live"])
        key = ns["run_key"](job, start.astimezone(zone), end.astimezone(zone), config, source)
        assert key == oracle_key(job, start, end, config, source)
        identity = (job, start, end, json.dumps(config, sort_keys=True), source)
        assert seen.setdefault(key, identity) == identity, "two different runs share a key"


@settings(derandomize=True, max_examples=300, deadline=None)
@given(st.dictionaries(st.text(max_size=5), st.integers() | st.text(max_size=5), max_size=6))
def test_config_hash_ignores_key_order(config):
    config_hash = reference.namespace(EXERCISE)["config_hash"]
    assert config_hash(dict(reversed(list(config.items())))) == config_hash(config)


def test_catch_up_matches_a_minute_by_minute_oracle(ns):
    db = ns["connect"](":memory:")
    ns["create_runs_table"](db)
    rng = random.Random(11)
    for case in range(300):
        period = rng.choice([15, 60])
        last_end = datetime(2024, 3, 15, tzinfo=UTC) + timedelta(minutes=period * rng.randrange(96))
        now = last_end + timedelta(minutes=rng.randrange(-30, 8 * 60), seconds=rng.randrange(60))
        plan = ns["catch_up"](db, f"job{case}", last_end, now, period)
        # Oracle: walk the minutes; a window is due once its end has passed.
        ends = [last_end + timedelta(minutes=period * k) for k in range(1, 40)]
        closed = [end for end in ends if end <= now]
        expected_run = (closed[-1] - timedelta(minutes=period), closed[-1]) if closed else None
        expected_gaps = [(end - timedelta(minutes=period), end) for end in closed[:-1]]
        assert plan == {"run": expected_run, "gaps": expected_gaps}, (last_end, now, period)
        logged = db.execute("SELECT COUNT(*) FROM gaps WHERE job = ?", (f"job{case}",)).fetchone()
        assert logged[0] == len(expected_gaps)
    assert db.execute("SELECT COUNT(*) FROM runs").fetchone()[0] == 0, "catch_up created runs"


# --------------------------------------------------------------------------- APScheduler

def wait_for(predicate, seconds: float = 60.0) -> bool:
    """Whether `predicate` comes true within `seconds`: it returns as soon as it does, so the
    bound only catches an event that never comes, never a slow (loaded) machine."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.01)
    return False


def test_the_settings_work_in_a_real_apscheduler(ns):
    settings_ = ns["scheduler_settings"]("psx_hourly", 5, 30, 2, "Asia/Karachi")
    zone = ZoneInfo(settings_["timezone"])
    # The trigger, asked about an injected moment: hourly at :05 Karachi time.
    trigger = CronTrigger(minute=settings_["minute"], timezone=zone)
    fire = trigger.get_next_fire_time(None, datetime(2024, 3, 15, 6, 7, tzinfo=UTC))
    assert fire.astimezone(UTC) == datetime(2024, 3, 15, 7, 5, tzinfo=UTC)

    events: list[tuple[int, str]] = []
    started, release = threading.Event(), threading.Event()

    def slow_run():
        started.set()
        release.wait(5)

    scheduler = BackgroundScheduler(timezone=zone)
    scheduler.add_listener(lambda event: events.append((event.code, event.job_id)),
                           EVENT_JOB_EXECUTED | EVENT_JOB_MISSED | EVENT_JOB_MAX_INSTANCES)
    scheduler.start()
    try:
        job = scheduler.add_job(slow_run, next_run_time=datetime.now(zone), **settings_)
        assert str(job.trigger) == "cron[minute='5']" and job.trigger.timezone == zone
        assert (job.max_instances, job.coalesce, job.misfire_grace_time) == (1, True, 1680)
        assert started.wait(5), "the job did not fire"
        # A second firing while the first still runs is refused: max_instances=1.
        job.modify(next_run_time=datetime.now(zone))
        scheduler.wakeup()
        assert wait_for(lambda: (EVENT_JOB_MAX_INSTANCES, "psx_hourly") in events)
        release.set()
        assert wait_for(lambda: (EVENT_JOB_EXECUTED, "psx_hourly") in events)
        # replace_existing: adding the job again on restart replaces it instead of failing.
        scheduler.add_job(slow_run, next_run_time=datetime.now(zone) + timedelta(hours=1),
                          **settings_)
        assert len(scheduler.get_jobs()) == 1
        # A firing later than misfire_grace_time is skipped; one within it still runs.
        # (Date triggers, so that no cron firing falls between the late time and now.)
        grace = timedelta(seconds=settings_["misfire_grace_time"])
        safety = {name: settings_[name]
                  for name in ("max_instances", "coalesce", "misfire_grace_time")}
        scheduler.add_job(print, "date", run_date=datetime.now(zone) - grace - timedelta(minutes=1),
                          id="too_late", **safety)
        scheduler.add_job(lambda: None, "date", run_date=datetime.now(zone) - grace / 2,
                          id="late_but_useful", **safety)
        assert wait_for(lambda: (EVENT_JOB_MISSED, "too_late") in events)
        assert wait_for(lambda: (EVENT_JOB_EXECUTED, "late_but_useful") in events)
        assert (EVENT_JOB_EXECUTED, "too_late") not in events
    finally:
        release.set()
        scheduler.shutdown(wait=True)


# --------------------------------------------------------------------------- the figure's data

def narrative_cell(marker: str) -> str:
    notebook = nbformat.read(SOLUTIONS / EXERCISE.path, as_version=4)
    return next(cell.source for cell in notebook.cells
                if cell.cell_type == "code" and marker in cell.source)


def test_the_replayed_day_has_every_event_the_timeline_shows(ns):
    names = dict(ns)
    exec(narrative_cell("RAW = (DATA"), names)
    exec("import tempfile\n" + narrative_cell("def simulate_day"), names)
    kinds: dict[float, list[str]] = {}
    for event in names["history"]:
        kinds.setdefault(event["window"], []).append(event["kind"])
    assert {window: sorted(found) for window, found in kinds.items()} == {
        4.0: ["succeeded"], 5.0: ["retried"], 6.0: ["duplicate", "succeeded"],
        7.0: ["expired", "recovered"], 8.0: ["failed"], 9.0: ["gap"], 10.0: ["gap"],
        11.0: ["gap"], 12.0: ["succeeded"]}
    assert names["states"] == [("FAILED", 1), ("SUCCEEDED", 5)]
    assert names["gap_rows"] == 3


def test_the_replayed_day_is_printed_in_clock_time(ns, capsys):
    names = dict(ns)
    exec(narrative_cell("RAW = (DATA"), names)
    capsys.readouterr()
    exec("import tempfile\n" + narrative_cell("def simulate_day"), names)
    lines = capsys.readouterr().out.splitlines()
    recovered = next(line for line in lines if "recovered" in line)
    assert recovered.split()[:2] == ["08:25", "07:00-08:00"], (
        f"the recovery at 08:25 UTC of the 07:00-08:00 window is printed as {recovered!r}")


def test_the_order_probe_waits_for_a_pools_future_not_for_its_thread_to_end(monkeypatch):
    """A thread pool's threads outlive their calls, so waiting for the thread to end would hold
    every pool-based answer for the probe's whole bound; the call's future says when its result
    is in place. Checked with a pool thread that is still alive when the wait returns."""
    from concurrent.futures import ThreadPoolExecutor
    from concurrent.futures.thread import _WorkItem

    from autograder.sandbox.probes import proofs

    monkeypatch.setattr(proofs, "WAIT", 0.5)  # a wait that ends by its bound says False
    original = _WorkItem.run
    with proofs._noting_futures(), ThreadPoolExecutor(max_workers=1) as pool:
        seen = pool.submit(lambda: (threading.current_thread(), proofs._task.future))
        thread, future = seen.result()
        assert future is seen
        assert proofs._in_place(thread, future)
        assert thread.is_alive()  # in place while the pool's thread lives on
    assert _WorkItem.run is original  # put back as it was
    plain = threading.Thread(target=lambda: None)
    plain.start()
    assert proofs._in_place(plain, None)
    assert not plain.is_alive()  # a thread of its own: its result is in place once it has ended
