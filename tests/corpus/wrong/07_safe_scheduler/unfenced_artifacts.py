# Bug: the attempt number fences only finish_run, not the files. A worker that stalled past
# its lease wakes up after another worker recovered and finished the run, fails, and removes the
# recovered run's report: the runs table says SUCCEEDED and no file is left.
# ruff: noqa: F821, E501, B905 (the other names come from the notebook's setup cells)
# notebook: 07_safe_scheduler
# loses: test_proofs
# %% answer_job_flow edited
#         for name, data in zip(names, contents):
#-            with transaction(db):  # the write lock: no takeover between the check and the write
#-                if not holds_run(db, key, attempt):  # fenced: a newer attempt owns the run
#-                    return {**result, "status": "LOST", "raw_hash": raw_hash}
#-                append_artifact(db, key, attempt, name, store.write(name, data))
#+            append_artifact(db, key, attempt, name, store.write(name, data))
#         if not all(store.exists(name) for name in names):
# @@
#     except Exception as error:
#-        with transaction(db):
#-            if not holds_run(db, key, attempt):  # the files belong to the attempt that holds the run
#-                return {**result, "status": "LOST", "raw_hash": raw_hash}
#-            for name in names:  # a half-published run must not look like a current report
#-                store.remove(name)
#+        for name in names:  # a half-published run must not look like a current report
#+            store.remove(name)
#         finish_run(db, key, attempt, "FAILED", clock.now(), error_category(error))
