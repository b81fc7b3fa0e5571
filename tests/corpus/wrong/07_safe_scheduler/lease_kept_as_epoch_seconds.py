# Bug: acquire_run keeps lease_expires_at as seconds since 1970, not as utc_text: every lease
# decision is right, but the table holds a number where the notebook asks for UTC text.
# ruff: noqa: F821, E501 (the other names come from the notebook's setup cells)
# notebook: 07_safe_scheduler
# loses: test_runs_table
# %% new:answer_runs_table
def acquire_run(db: sqlite3.Connection, run_key: str, now: datetime, lease_seconds: float,
                owner: str) -> dict:
    """Claim the run before any work: {"action": ..., "attempt": int, "raw_hash": str | None}."""
    stamp = utc_text(now)
    lease = now.timestamp() + lease_seconds  # seconds since 1970: easy to compare
    try:
        with transaction(db):  # the UNIQUE constraint decides who is first, not a SELECT
            db.execute(
                "INSERT INTO runs (run_key, state, attempt, owner, lease_expires_at, "
                "created_at, updated_at) VALUES (?, 'RUNNING', 1, ?, ?, ?, ?)",
                (run_key, owner, lease, stamp, stamp))
            db.execute("INSERT INTO attempts VALUES (?, 1, ?, ?, 'RUNNING', 'first')",
                       (run_key, owner, stamp))
        return {"action": "started", "attempt": 1, "raw_hash": None}
    except sqlite3.IntegrityError:
        pass
    state, attempt, lease_text, raw_hash = db.execute(
        "SELECT state, attempt, lease_expires_at, raw_hash FROM runs WHERE run_key = ?",
        (run_key,)).fetchone()
    if state == "SUCCEEDED":
        return {"action": "skipped", "attempt": attempt, "raw_hash": raw_hash}
    if state == "RUNNING" and now.timestamp() < float(lease_text):
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
