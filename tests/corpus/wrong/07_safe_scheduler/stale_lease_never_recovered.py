# Bug: a RUNNING run is always a duplicate, even after its lease expired: a run whose worker died
# blocks its window forever.
# ruff: noqa: F821, E501, B905 (the other names come from the notebook's setup cells)
# notebook: 07_safe_scheduler
# loses: test_runs_table
# %% answer_runs_table edited
#         return {"action": "skipped", "attempt": attempt, "raw_hash": raw_hash}
#-    if state == "RUNNING" and now < from_utc_text(lease_text):
#+    if state == "RUNNING":
#         return {"action": "duplicate", "attempt": attempt, "raw_hash": raw_hash}
