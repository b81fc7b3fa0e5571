# Bug: scheduled_tick works out the window with window_for's default hour, whatever period
# the job runs at, so a 15-minute job covers the last hour.
# ruff: noqa: F821, E501 (the other names come from the notebook's setup cells)
# notebook: 07_safe_scheduler
# loses: test_scheduling
# %% answer_scheduling edited
#     fired_at = clock.now()  # the one timestamp of this run; everything below derives from it
#-    window_start, window_end = window_for(fired_at, period_minutes)
#+    window_start, window_end = window_for(fired_at)
#     result = run(Job(name, window_start, window_end, config))
