# Bug: no jitter at all: returns the capped ceilings themselves.
# notebook: 05_backoff_delays
# loses: test_backoff_delays
# %% answer_backoff_delays
def backoff_delays(attempts, base, cap, seed):
    if attempts < 0 or base < 0 or cap < 0:
        raise ValueError("negative argument")
    delays = []
    ceiling = base
    for _ in range(attempts):
        delays.append(float(min(cap, ceiling)))
        if ceiling < cap:
            ceiling *= 2
    return delays
