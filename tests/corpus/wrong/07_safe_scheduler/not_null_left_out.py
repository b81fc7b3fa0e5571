# Bug: the schema declares no column NOT NULL, so a row without a state, an owner or a lease is
# accepted (the notebook says every column but raw_hash and error of runs is NOT NULL).
# ruff: noqa: F821, E501, B905 (the other names come from the notebook's setup cells)
# notebook: 07_safe_scheduler
# loses: test_runs_table
# %% new:answer_runs_table
def create_runs_table(db: sqlite3.Connection) -> None:
    """Create the tables `runs` and `attempts` (if they do not exist yet)."""
    db.executescript("""
        CREATE TABLE IF NOT EXISTS runs (
            run_key TEXT UNIQUE,
            state TEXT CHECK (state IN ('RUNNING', 'SUCCEEDED', 'FAILED')),
            attempt INTEGER,
            owner TEXT,
            lease_expires_at TEXT,
            raw_hash TEXT,
            error TEXT,
            created_at TEXT,
            updated_at TEXT);
        CREATE TABLE IF NOT EXISTS attempts (
            run_key TEXT,
            attempt INTEGER,
            owner TEXT,
            started_at TEXT,
            outcome TEXT,
            note TEXT,
            UNIQUE (run_key, attempt));
    """)
