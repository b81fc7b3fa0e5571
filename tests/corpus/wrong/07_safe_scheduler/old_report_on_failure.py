# Bug: a failed run leaves its half-written files and hands back the report name, so an old or
# partial report looks current.
# ruff: noqa: F821, E501, B905 (the other names come from the notebook's setup cells)
# notebook: 07_safe_scheduler
# loses: test_job_flow
# %% answer_job_flow edited
#     except Exception as error:
#-        with transaction(db):
#-            if not holds_run(db, key, attempt):  # the files belong to the attempt that holds the run
#-                return {**result, "status": "LOST", "raw_hash": raw_hash}
#-            for name in names:  # a half-published run must not look like a current report
#-                store.remove(name)
#         finish_run(db, key, attempt, "FAILED", clock.now(), error_category(error))
#         return {**result, "status": "FAILED", "raw_hash": raw_hash,
#-                "error": error_category(error)}
#+                "error": error_category(error), "report": names[0]}
#     if not finish_run(db, key, attempt, "SUCCEEDED", clock.now()):
