# Bug: run_job reports "normalised" as the step starts, not once it is done, so a run that fails
# validation reports it too.
# ruff: noqa: F821, E501, B905 (the other names come from the notebook's setup cells)
# notebook: 07_safe_scheduler
# loses: test_job_flow
# %% answer_job_flow edited
#         step("raw_stored")
#+        step("normalised")  # announced as it starts
# @@
#         store_records(db, key, records)
#-        step("normalised")
