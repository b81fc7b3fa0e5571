# Bug: run_job returns SUCCEEDED without reporting the last step, "succeeded", so whoever
# watches on_step never learns that the run finished.
# ruff: noqa: F821, E501, B905 (the other names come from the notebook's setup cells)
# notebook: 07_safe_scheduler
# loses: test_job_flow
# %% answer_job_flow edited
#         return {**result, "status": "LOST", "raw_hash": raw_hash}
#-    step("succeeded")
#     return {**result, "status": "SUCCEEDED", "raw_hash": raw_hash, "report": names[0]}
