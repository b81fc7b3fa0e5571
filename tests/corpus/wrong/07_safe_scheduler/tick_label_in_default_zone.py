# Bug: scheduled_tick shows the time with local_label's default zone, not the zone it is given, so
# a London job's label says Karachi time.
# ruff: noqa: F821, E501, B905 (the other names come from the notebook's setup cells)
# notebook: 07_safe_scheduler
# loses: test_scheduling
# %% answer_scheduling edited
#     return {"fired_at": fired_at.astimezone(UTC), "window": (window_start, window_end),
#-            "shown": local_label(fired_at, zone), "result": result}
#+            "shown": local_label(fired_at), "result": result}
