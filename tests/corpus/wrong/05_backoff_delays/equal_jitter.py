# Bug: equal jitter (half the ceiling plus a random half) instead of full jitter.
# notebook: 05_backoff_delays
# loses: test_backoff_delays
# %% answer_backoff_delays
import random


def backoff_delays(attempts, base, cap, seed):
    if attempts < 0 or base < 0 or cap < 0:
        raise ValueError("negative argument")
    rng = random.Random(seed)
    delays = []
    ceiling = base
    for _ in range(attempts):
        half = min(cap, ceiling) / 2
        delays.append(half + rng.uniform(0, half))
        if ceiling < cap:
            ceiling *= 2
    return delays
