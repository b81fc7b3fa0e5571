# Bug: run_job reports "acquired" as soon as acquire_run returns, before it looks at the action,
# so a SKIPPED or DUPLICATE run reports a step too.
# ruff: noqa: F821, E501, B905 (the other names come from the notebook's setup cells)
# notebook: 07_safe_scheduler
# loses: test_job_flow
# %% answer_job_flow edited
#     claim = acquire_run(db, key, clock.now(), job.lease_seconds, owner)
#+    step("acquired")  # step 2 is done once acquire_run has returned
# @@
#         return {**result, "status": "DUPLICATE"}
#-    step("acquired")
