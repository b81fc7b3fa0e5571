# Bug: acquire_run opens a deferred transaction (a plain BEGIN, not BEGIN IMMEDIATE), looks with
# SELECT and then INSERTs without catching the IntegrityError: a deferred BEGIN takes no lock, so
# two triggers that look at once both try to start, and the second one's INSERT fails.
# ruff: noqa: F821, E501, B905 (the other names come from the notebook's setup cells and answers)
# notebook: 07_safe_scheduler
# loses: test_runs_table, test_proofs
# %% new:answer_runs_table
_acquire_existing = acquire_run  # the notebook's own answer, for a run that already has a row


def acquire_run(db, run_key, now, lease_seconds, owner):
    db.execute("BEGIN")
    if db.execute("SELECT 1 FROM runs WHERE run_key = ?", (run_key,)).fetchone() is not None:
        db.execute("COMMIT")
        return _acquire_existing(db, run_key, now, lease_seconds, owner)
    stamp = utc_text(now)
    db.execute("INSERT INTO runs (run_key, state, attempt, owner, lease_expires_at, created_at, "
               "updated_at) VALUES (?, 'RUNNING', 1, ?, ?, ?, ?)",
               (run_key, owner, utc_text(now + timedelta(seconds=lease_seconds)), stamp, stamp))
    db.execute("INSERT INTO attempts VALUES (?, 1, ?, ?, 'RUNNING', 'first')",
               (run_key, owner, stamp))
    db.execute("COMMIT")
    return {"action": "started", "attempt": 1, "raw_hash": None}
