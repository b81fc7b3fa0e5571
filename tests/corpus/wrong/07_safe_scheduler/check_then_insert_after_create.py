# Bug: acquire_run first makes sure the tables exist (CREATE TABLE IF NOT EXISTS), then looks with
# SELECT, and only then opens its transaction to INSERT, without catching the IntegrityError: two
# triggers that look at once both try to start, and the second one's INSERT fails.
# ruff: noqa: F821 (the other names come from the notebook's setup cells and answers)
# notebook: 07_safe_scheduler
# loses: test_runs_table, test_proofs
# %% new:answer_runs_table
_acquire_existing = acquire_run  # the notebook's own answer, for a run that already has a row


def acquire_run(db, run_key, now, lease_seconds, owner):
    create_runs_table(db)  # the tables first, in case this is the very first run
    found = db.execute("SELECT attempt FROM runs WHERE run_key = ?", (run_key,)).fetchone()
    if found:
        return _acquire_existing(db, run_key, now, lease_seconds, owner)
    lease_ends = now + timedelta(seconds=lease_seconds)
    with transaction(db):
        db.execute("INSERT INTO runs (run_key, state, attempt, owner, lease_expires_at, "
                   "created_at, updated_at) VALUES (?, 'RUNNING', 1, ?, ?, ?, ?)",
                   (run_key, owner, utc_text(lease_ends), utc_text(now), utc_text(now)))
        db.execute("INSERT INTO attempts VALUES (?, 1, ?, ?, 'RUNNING', 'first')",
                   (run_key, owner, utc_text(now)))
    return {"action": "started", "attempt": 1, "raw_hash": None}
