# Honest: run_job looks at holds_run early, outside any transaction, only to skip work; the
# fence that counts is a helper (a context manager) that checks holds_run again inside the
# transaction in which each file is written or removed.
# ruff: noqa: F821, E501, B905 (the other names come from the notebook's setup cells)
# notebook: 07_safe_scheduler
# %% answer_job_flow edited
#+@contextmanager
#+def fenced(db, key, attempt):
#+    """A transaction in which the file operations of `attempt` may happen: yields whether it
#+    still holds the run, checked under the write lock that the block keeps."""
#+    with transaction(db):
#+        yield holds_run(db, key, attempt)
#+
#+
# def run_job(db: sqlite3.Connection, job: Job, source: QuoteSource, store: ArtifactStore,
# @@
#         step("metrics")
#+        if not holds_run(db, key, attempt):  # an early look, to skip building the files
#+            return {**result, "status": "LOST", "raw_hash": raw_hash}
#         contents = [report_bytes(key, job, raw_hash, metrics), records_csv(records)]
#         for name, data in zip(names, contents):
#-            with transaction(db):  # the write lock: no takeover between the check and the write
#-                if not holds_run(db, key, attempt):  # fenced: a newer attempt owns the run
#+            with fenced(db, key, attempt) as holding:
#+                if not holding:
#                     return {**result, "status": "LOST", "raw_hash": raw_hash}
# @@
#     except Exception as error:
#-        with transaction(db):
#-            if not holds_run(db, key, attempt):  # the files belong to the attempt that holds the run
#+        if not holds_run(db, key, attempt):  # an early look; the fence below decides
#+            return {**result, "status": "LOST", "raw_hash": raw_hash}
#+        with fenced(db, key, attempt) as holding:
#+            if not holding:
#                 return {**result, "status": "LOST", "raw_hash": raw_hash}
#-            for name in names:  # a half-published run must not look like a current report
#+            for name in names:
#                 store.remove(name)
