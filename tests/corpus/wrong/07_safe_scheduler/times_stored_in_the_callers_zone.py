# Bug: acquire_run stores now.isoformat(), the time in whatever zone the caller's `now` is
# in, instead of utc_text(now): right for a UTC clock, wrong for Karachi time.
# ruff: noqa: F821, E501 (the other names come from the notebook's setup cells)
# notebook: 07_safe_scheduler
# loses: test_runs_table
# %% answer_runs_table edited
#     """Claim the run before any work: {"action": ..., "attempt": int, "raw_hash": str | None}."""
#-    stamp = utc_text(now)
#-    lease = utc_text(now + timedelta(seconds=lease_seconds))
#+    stamp = now.isoformat()  # the caller's zone, not UTC
#+    lease = (now + timedelta(seconds=lease_seconds)).isoformat()
#     try:
