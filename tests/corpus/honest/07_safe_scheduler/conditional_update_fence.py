# Honest: the fence is a conditional UPDATE of the runs row (it changes a row only for the
# attempt that holds the run) in a BEGIN IMMEDIATE ... COMMIT written out by hand, and the
# artifact's row goes in before its file is written.
# ruff: noqa: F821, E501, B905 (the other names come from the notebook's setup cells)
# notebook: 07_safe_scheduler
# %% answer_job_flow edited
#         for name, data in zip(names, contents):
#-            with transaction(db):  # the write lock: no takeover between the check and the write
#-                if not holds_run(db, key, attempt):  # fenced: a newer attempt owns the run
#-                    return {**result, "status": "LOST", "raw_hash": raw_hash}
#-                append_artifact(db, key, attempt, name, store.write(name, data))
#+            db.execute("BEGIN IMMEDIATE")
#+            try:
#+                # a conditional write is the fence: it changes a row only for the holder
#+                held = db.execute("UPDATE runs SET updated_at = updated_at WHERE run_key = ? "
#+                                  "AND attempt = ? AND state = 'RUNNING'", (key, attempt)).rowcount
#+                if held:
#+                    append_artifact(db, key, attempt, name, sha256_hex(data))
#+                    if store.write(name, data) != sha256_hex(data):
#+                        raise ArtifactError(f"{name} was not written as given")
#+            except BaseException:
#+                db.execute("ROLLBACK")
#+                raise
#+            db.execute("COMMIT")
#+            if not held:
#+                return {**result, "status": "LOST", "raw_hash": raw_hash}
#         if not all(store.exists(name) for name in names):
# @@
#     except Exception as error:
#-        with transaction(db):
#-            if not holds_run(db, key, attempt):  # the files belong to the attempt that holds the run
#-                return {**result, "status": "LOST", "raw_hash": raw_hash}
#-            for name in names:  # a half-published run must not look like a current report
#-                store.remove(name)
#+        db.execute("BEGIN IMMEDIATE")
#+        try:
#+            held = db.execute("UPDATE runs SET updated_at = updated_at WHERE run_key = ? "
#+                              "AND attempt = ? AND state = 'RUNNING'", (key, attempt)).rowcount
#+            if held:
#+                for name in names:
#+                    store.remove(name)
#+        except BaseException:
#+            db.execute("ROLLBACK")
#+            raise
#+        db.execute("COMMIT")
#+        if not held:
#+            return {**result, "status": "LOST", "raw_hash": raw_hash}
#         finish_run(db, key, attempt, "FAILED", clock.now(), error_category(error))
