# Bug: run_key leaves the time-zone check to utc_text and compares the window's ends first, so a
# naive start beside an aware end raises TypeError from the comparison instead of ValueError.
# notebook: 07_safe_scheduler
# loses: test_run_key
# %% answer_run_key edited
#     """The identity of one logical run: sha256 (hex) of its five parts as canonical JSON."""
#-    if window_start.tzinfo is None or window_end.tzinfo is None:
#-        raise ValueError("window_start and window_end must be timezone-aware")
#     if window_end <= window_start:
