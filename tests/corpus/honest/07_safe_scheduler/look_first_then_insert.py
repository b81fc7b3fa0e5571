# Honest: acquire_run looks first (a SELECT outside any transaction) only to go straight to an
# existing run; a run it did not find it still claims with an INSERT whose IntegrityError says
# that another trigger was first, so two triggers that both looked and saw nothing start once.
# ruff: noqa: F821 (the other names come from the notebook's setup cells and answers)
# notebook: 07_safe_scheduler
# %% new:answer_runs_table
_acquire_existing = acquire_run  # the notebook's own answer, for a run that already has a row


def acquire_run(db, run_key, now, lease_seconds, owner):
    if db.execute("SELECT 1 FROM runs WHERE run_key = ?", (run_key,)).fetchone() is None:
        stamp = utc_text(now)
        try:
            with transaction(db):
                db.execute("INSERT INTO runs (run_key, state, attempt, owner, lease_expires_at, "
                           "created_at, updated_at) VALUES (?, 'RUNNING', 1, ?, ?, ?, ?)",
                           (run_key, owner, utc_text(now + timedelta(seconds=lease_seconds)),
                            stamp, stamp))
                db.execute("INSERT INTO attempts VALUES (?, 1, ?, ?, 'RUNNING', 'first')",
                           (run_key, owner, stamp))
            return {"action": "started", "attempt": 1, "raw_hash": None}
        except sqlite3.IntegrityError:
            pass  # another trigger inserted it since the look
    return _acquire_existing(db, run_key, now, lease_seconds, owner)
