# Bug: catch_up's loop runs while start <= due_start, so the window it is about to run is
# logged as a gap too, even when nothing was missed.
# ruff: noqa: F821, E501 (the other names come from the notebook's setup cells)
# notebook: 07_safe_scheduler
# loses: test_proofs
# %% answer_proofs edited
#     start = last_end.astimezone(UTC)
#-    while start < due_start:
#+    while start <= due_start:
#         gaps.append((start, start + period))
