# Bug: the fencing check runs outside the transaction that writes: holds_run is checked, and
# only then does a transaction of its own write the file (or remove the files after an error). A
# worker that is taken over in between still writes over, or removes, the files of the attempt
# that recovered the run.
# ruff: noqa: F821, E501, B905 (the other names come from the notebook's setup cells)
# notebook: 07_safe_scheduler
# loses: test_proofs
# %% answer_job_flow edited
#         for name, data in zip(names, contents):
#-            with transaction(db):  # the write lock: no takeover between the check and the write
#-                if not holds_run(db, key, attempt):  # fenced: a newer attempt owns the run
#-                    return {**result, "status": "LOST", "raw_hash": raw_hash}
#+            if not holds_run(db, key, attempt):  # fenced: a newer attempt owns the run
#+                return {**result, "status": "LOST", "raw_hash": raw_hash}
#+            with transaction(db):  # a transaction of its own, opened after the check
#                 append_artifact(db, key, attempt, name, store.write(name, data))
# @@
#     except Exception as error:
#-        with transaction(db):
#-            if not holds_run(db, key, attempt):  # the files belong to the attempt that holds the run
#-                return {**result, "status": "LOST", "raw_hash": raw_hash}
#+        if not holds_run(db, key, attempt):  # the files belong to the attempt that holds the run
#+            return {**result, "status": "LOST", "raw_hash": raw_hash}
#+        with transaction(db):  # a transaction of its own, opened after the check
#             for name in names:  # a half-published run must not look like a current report
