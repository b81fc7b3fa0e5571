# Bug: after downtime catch_up replays the missed windows one by one with today's data instead of
# logging them as gaps.
# ruff: noqa: F821, E501, B905 (the other names come from the notebook's setup cells)
# notebook: 07_safe_scheduler
# loses: test_proofs
# %% answer_proofs edited
#         start += period
#-    with transaction(db):  # a gap is written down, never filled with a made-up observation
#-        for gap_start, gap_end in gaps:
#-            db.execute("INSERT OR IGNORE INTO gaps VALUES (?, ?, ?, ?)",
#-                       (job, utc_text(gap_start), utc_text(gap_end), utc_text(now)))
#-    return {"run": (due_start, due_end), "gaps": gaps}
#+    if gaps:  # resume where we left off: run the oldest missed window first
#+        return {"run": gaps[0], "gaps": []}
#+    return {"run": (due_start, due_end), "gaps": []}
