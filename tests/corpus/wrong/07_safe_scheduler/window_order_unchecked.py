# Bug: only a missing time zone is rejected; a window that ends when or before it starts gets a
# key as if it were a run.
# ruff: noqa: F821 (the other names come from the notebook's setup and answer cells)
# notebook: 07_safe_scheduler
# loses: test_run_key
# %% answer_run_key edited
#         raise ValueError("window_start and window_end must be timezone-aware")
#-    if window_end <= window_start:
#-        raise ValueError(f"the window must end after it starts: it starts at {window_start} and ends at {window_end}")
#     parts = {
