# threat: acquire_run that checks and then inserts (two triggers at once collide), plus a cell of
# its own that rebinds the race probe's data: the seconds it lets the workers take to meet at
# their first statement, so that the "simultaneous" workers no longer wait for each other and
# the race is left to timing (a constant of the probe module, not a function).
# notebook: 07_safe_scheduler
# max-points: as its answers alone
# ruff: noqa: F821, E501, B905, E402, F811 (names come from the setup cells; cells import anew)
# %% answer_runs_table


def create_runs_table(db: sqlite3.Connection) -> None:
    """Create the tables `runs` and `attempts` (if they do not exist yet)."""
    db.executescript("""
        CREATE TABLE IF NOT EXISTS runs (
            run_key TEXT NOT NULL UNIQUE,
            state TEXT NOT NULL CHECK (state IN ('RUNNING', 'SUCCEEDED', 'FAILED')),
            attempt INTEGER NOT NULL,
            owner TEXT NOT NULL,
            lease_expires_at TEXT NOT NULL,
            raw_hash TEXT,
            error TEXT,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL);
        CREATE TABLE IF NOT EXISTS attempts (
            run_key TEXT NOT NULL,
            attempt INTEGER NOT NULL,
            owner TEXT NOT NULL,
            started_at TEXT NOT NULL,
            outcome TEXT NOT NULL,
            note TEXT NOT NULL,
            UNIQUE (run_key, attempt));
    """)
def acquire_run(db: sqlite3.Connection, run_key: str, now: datetime, lease_seconds: float,
                owner: str) -> dict:
    """Claim the run before any work: {"action": ..., "attempt": int, "raw_hash": str | None}."""
    stamp = utc_text(now)
    lease = utc_text(now + timedelta(seconds=lease_seconds))
    row = db.execute("SELECT 1 FROM runs WHERE run_key = ?", (run_key,)).fetchone()
    if row is None:
        with transaction(db):
            db.execute(
                "INSERT INTO runs (run_key, state, attempt, owner, lease_expires_at, "
                "created_at, updated_at) VALUES (?, 'RUNNING', 1, ?, ?, ?, ?)",
                (run_key, owner, lease, stamp, stamp))
            db.execute("INSERT INTO attempts VALUES (?, 1, ?, ?, 'RUNNING', 'first')",
                       (run_key, owner, stamp))
        return {"action": "started", "attempt": 1, "raw_hash": None}
    state, attempt, lease_text, raw_hash = db.execute(
        "SELECT state, attempt, lease_expires_at, raw_hash FROM runs WHERE run_key = ?",
        (run_key,)).fetchone()
    if state == "SUCCEEDED":
        return {"action": "skipped", "attempt": attempt, "raw_hash": raw_hash}
    if state == "RUNNING" and now < from_utc_text(lease_text):
        return {"action": "duplicate", "attempt": attempt, "raw_hash": raw_hash}
    # An expired lease is recovered with the same raw input; a FAILED run is retried afresh.
    action = "recovered" if state == "RUNNING" else "retried"
    kept_hash = raw_hash if action == "recovered" else None
    with transaction(db):
        taken = db.execute(
            "UPDATE runs SET state = 'RUNNING', attempt = attempt + 1, owner = ?, "
            "lease_expires_at = ?, raw_hash = ?, error = NULL, updated_at = ? "
            "WHERE run_key = ? AND attempt = ? AND state = ?",
            (owner, lease, kept_hash, stamp, run_key, attempt, state)).rowcount
        if taken:
            if action == "recovered":
                db.execute("UPDATE attempts SET outcome = 'EXPIRED' "
                           "WHERE run_key = ? AND attempt = ?", (run_key, attempt))
            db.execute("INSERT INTO attempts VALUES (?, ?, ?, ?, 'RUNNING', ?)",
                       (run_key, attempt + 1, owner, stamp, action))
    if not taken:  # another worker recovered it a moment earlier
        return {"action": "duplicate", "attempt": attempt + 1, "raw_hash": kept_hash}
    return {"action": action, "attempt": attempt + 1, "raw_hash": kept_hash}
def finish_run(db: sqlite3.Connection, run_key: str, attempt: int, state: str, now: datetime,
               error: str | None = None) -> bool:
    """Mark the run SUCCEEDED or FAILED if `attempt` still holds it; True when it did."""
    if state not in ("SUCCEEDED", "FAILED"):
        raise ValueError(f"a run finishes as SUCCEEDED or FAILED, not {state!r}")
    with transaction(db):
        changed = db.execute(
            "UPDATE runs SET state = ?, error = ?, updated_at = ? "
            "WHERE run_key = ? AND attempt = ? AND state = 'RUNNING'",
            (state, error, utc_text(now), run_key, attempt)).rowcount
        if changed:
            db.execute("UPDATE attempts SET outcome = ? WHERE run_key = ? AND attempt = ?",
                       (state, run_key, attempt))
    return changed == 1
# %% new
import sys

for name, module in list(sys.modules.items()):
    if name.endswith("probes._capstone"):
        module.RACE_WAIT = 0.0
