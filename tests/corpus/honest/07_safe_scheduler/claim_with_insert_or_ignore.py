# Honest: acquire_run claims a new run with INSERT OR IGNORE in the transaction that records its
# first attempt, and reads the row only when the insert changed nothing: the UNIQUE constraint
# decides who is first, without an IntegrityError.
# ruff: noqa: F821 (the other names come from the notebook's setup cells and answers)
# notebook: 07_safe_scheduler
# %% new:answer_runs_table
_acquire_existing = acquire_run  # the notebook's own answer, for a run that already has a row


def acquire_run(db, run_key, now, lease_seconds, owner):
    stamp = utc_text(now)
    with transaction(db):
        claimed = db.execute(
            "INSERT OR IGNORE INTO runs (run_key, state, attempt, owner, lease_expires_at, "
            "created_at, updated_at) VALUES (?, 'RUNNING', 1, ?, ?, ?, ?)",
            (run_key, owner, utc_text(now + timedelta(seconds=lease_seconds)), stamp,
             stamp)).rowcount
        if claimed:
            db.execute("INSERT INTO attempts VALUES (?, 1, ?, ?, 'RUNNING', 'first')",
                       (run_key, owner, stamp))
    if claimed:
        return {"action": "started", "attempt": 1, "raw_hash": None}
    return _acquire_existing(db, run_key, now, lease_seconds, owner)
