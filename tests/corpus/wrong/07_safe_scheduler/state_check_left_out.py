# Bug: the schema has no CHECK on the state and no UNIQUE (run_key, attempt), so a run in a state
# the job never uses, or a second row for one attempt, is accepted.
# ruff: noqa: F821, E501, B905 (the other names come from the notebook's setup cells)
# notebook: 07_safe_scheduler
# loses: test_runs_table
# %% new:answer_runs_table
def create_runs_table(db: sqlite3.Connection) -> None:
    """Create the tables `runs` and `attempts` (if they do not exist yet)."""
    db.execute("CREATE TABLE IF NOT EXISTS runs (run_key TEXT PRIMARY KEY NOT NULL, "
               "state TEXT NOT NULL, attempt INTEGER NOT NULL, owner TEXT NOT NULL, "
               "lease_expires_at TEXT NOT NULL, raw_hash TEXT, error TEXT, "
               "created_at TEXT NOT NULL, updated_at TEXT NOT NULL)")
    db.execute("CREATE TABLE IF NOT EXISTS attempts (run_key TEXT NOT NULL, "
               "attempt INTEGER NOT NULL, owner TEXT NOT NULL, started_at TEXT NOT NULL, "
               "outcome TEXT NOT NULL, note TEXT NOT NULL)")
