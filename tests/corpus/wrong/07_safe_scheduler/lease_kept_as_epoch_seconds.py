# Bug: acquire_run keeps lease_expires_at as seconds since 1970, not as utc_text: every lease
# decision is right, but the table holds a number where the notebook asks for UTC text.
# ruff: noqa: F821, E501 (the other names come from the notebook's setup cells)
# notebook: 07_safe_scheduler
# loses: test_runs_table
# %% answer_runs_table edited
#     stamp = utc_text(now)
#-    lease = utc_text(now + timedelta(seconds=lease_seconds))
#+    lease = now.timestamp() + lease_seconds  # seconds since 1970: easy to compare
#     try:
# @@
#         return {"action": "skipped", "attempt": attempt, "raw_hash": raw_hash}
#-    if state == "RUNNING" and now < from_utc_text(lease_text):
#+    if state == "RUNNING" and now.timestamp() < float(lease_text):
#         return {"action": "duplicate", "attempt": attempt, "raw_hash": raw_hash}
