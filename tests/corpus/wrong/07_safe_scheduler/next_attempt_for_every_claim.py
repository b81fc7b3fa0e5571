# Bug: a skipped or duplicate claim reports the attempt it would have made (the row's
# attempt + 1), not the row's own attempt.
# ruff: noqa: F821, E501 (the other names come from the notebook's setup cells)
# notebook: 07_safe_scheduler
# loses: test_runs_table
# %% answer_runs_table edited
#         (run_key,)).fetchone()
#+    attempt_now = attempt + 1  # the attempt this call would make
#     if state == "SUCCEEDED":
#-        return {"action": "skipped", "attempt": attempt, "raw_hash": raw_hash}
#+        return {"action": "skipped", "attempt": attempt_now, "raw_hash": raw_hash}
#     if state == "RUNNING" and now < from_utc_text(lease_text):
#-        return {"action": "duplicate", "attempt": attempt, "raw_hash": raw_hash}
#+        return {"action": "duplicate", "attempt": attempt_now, "raw_hash": raw_hash}
#     # An expired lease is recovered with the same raw input; a FAILED run is retried afresh.
