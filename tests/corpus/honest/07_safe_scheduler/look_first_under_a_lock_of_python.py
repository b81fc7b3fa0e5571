# Honest: acquire_run first looks whether the run has already succeeded (then it is skipped at
# once), and otherwise claims it as the notebook's answer does, with an INSERT whose
# IntegrityError it catches; all of it under a lock of Python's. The lock keeps the threads of one
# process apart and decides nothing across processes, but the database still decides who is
# first; a race that holds one trigger after its look lets the other one take its turn.
# ruff: noqa: F821 (the other names come from the notebook's setup cells and answers)
# notebook: 07_safe_scheduler
# %% new:answer_runs_table
import threading

_ONE_AT_A_TIME = threading.Lock()
_claim = acquire_run  # the notebook's own answer: INSERT first, IntegrityError caught


def acquire_run(db, run_key, now, lease_seconds, owner):
    with _ONE_AT_A_TIME:
        done = db.execute("SELECT attempt, raw_hash FROM runs WHERE run_key = ? "
                          "AND state = 'SUCCEEDED'", (run_key,)).fetchone()
        if done is not None:
            return {"action": "skipped", "attempt": done[0], "raw_hash": done[1]}
        return _claim(db, run_key, now, lease_seconds, owner)
