# Bug: a FAILED result carries one key more than the table lists ("exception", the error's repr,
# kept for debugging), so code that reads the result by its documented keys sees an unknown one.
# ruff: noqa: F821, E501, B905 (the other names come from the notebook's setup cells)
# notebook: 07_safe_scheduler
# loses: test_job_flow
# %% answer_job_flow edited
#         return {**result, "status": "FAILED", "raw_hash": raw_hash,
#-                "error": error_category(error)}
#+                "error": error_category(error), "exception": repr(error)}  # for debugging
