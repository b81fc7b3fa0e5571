# Honest: the fence checks the runs row with a SELECT of its own (not holds_run) and covers
# both artifacts with one transaction: one check, then both writes, before the COMMIT.
# ruff: noqa: F821, E501, B905 (the other names come from the notebook's setup cells)
# notebook: 07_safe_scheduler
# %% answer_job_flow edited
#         contents = [report_bytes(key, job, raw_hash, metrics), records_csv(records)]
#-        for name, data in zip(names, contents):
#-            with transaction(db):  # the write lock: no takeover between the check and the write
#-                if not holds_run(db, key, attempt):  # fenced: a newer attempt owns the run
#-                    return {**result, "status": "LOST", "raw_hash": raw_hash}
#+        with transaction(db):  # one fence for both files: the check and every write
#+            row = db.execute("SELECT attempt, state FROM runs WHERE run_key = ?", (key,)).fetchone()
#+            if row != (attempt, "RUNNING"):
#+                return {**result, "status": "LOST", "raw_hash": raw_hash}
#+            for name, data in zip(names, contents):
#                 append_artifact(db, key, attempt, name, store.write(name, data))
# @@
#         with transaction(db):
#-            if not holds_run(db, key, attempt):  # the files belong to the attempt that holds the run
#+            row = db.execute("SELECT attempt, state FROM runs WHERE run_key = ?", (key,)).fetchone()
#+            if row != (attempt, "RUNNING"):  # another attempt holds the run: its files stay
#                 return {**result, "status": "LOST", "raw_hash": raw_hash}
#-            for name in names:  # a half-published run must not look like a current report
#+            for name in reversed(names):
#                 store.remove(name)
