# Bug: the runs table stores the error's message (hosts, tokens, paths) instead of its category.
# ruff: noqa: F821, E501, B905 (the other names come from the notebook's setup cells)
# notebook: 07_safe_scheduler
# loses: test_job_flow
# %% answer_job_flow edited
#                 store.remove(name)
#-        finish_run(db, key, attempt, "FAILED", clock.now(), error_category(error))
#+        finish_run(db, key, attempt, "FAILED", clock.now(), str(error))
#         return {**result, "status": "FAILED", "raw_hash": raw_hash,
