# Bug: scheduled_tick reads the clock again for the window, so a run fired at 06:59:59 can
# process the wrong hour.
# ruff: noqa: F821, E501, B905 (the other names come from the notebook's setup cells)
# notebook: 07_safe_scheduler
# loses: test_scheduling
# %% answer_scheduling edited
#     fired_at = clock.now()  # the one timestamp of this run; everything below derives from it
#-    window_start, window_end = window_for(fired_at, period_minutes)
#+    window_start, window_end = window_for(clock.now(), period_minutes)
#     result = run(Job(name, window_start, window_end, config))
