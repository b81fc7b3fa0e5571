# Bug: yields the delays lazily (a generator) instead of returning a list of floats.
# notebook: 05_backoff_delays
# loses: test_backoff_delays
# %% answer_backoff_delays
import random


def backoff_delays(attempts, base, cap, seed):
    if attempts < 0 or base < 0 or cap < 0:
        raise ValueError("negative argument")
    rng = random.Random(seed)
    ceiling = base
    for _ in range(attempts):
        yield rng.uniform(0, min(cap, ceiling))
        if ceiling < cap:
            ceiling *= 2
