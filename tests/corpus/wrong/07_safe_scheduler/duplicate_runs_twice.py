# Bug: run_job only stops for a SUCCEEDED run: a trigger that meets a RUNNING run does the work a
# second time.
# ruff: noqa: F821, E501, B905 (the other names come from the notebook's setup cells)
# notebook: 07_safe_scheduler
# loses: test_proofs
# %% answer_job_flow edited
#         return {**result, "status": "SKIPPED", "report": names[0]}
#-    if claim["action"] == "duplicate":
#-        return {**result, "status": "DUPLICATE"}
#     step("acquired")
