# Bug: checks only attempts; a negative base or cap slips through.
# notebook: 05_backoff_delays
# loses: test_backoff_delays
# %% answer_backoff_delays
import random


def backoff_delays(attempts, base, cap, seed):
    if attempts < 0:
        raise ValueError("attempts must not be negative")
    rng = random.Random(seed)
    delays = []
    ceiling = base
    for _ in range(attempts):
        delays.append(rng.uniform(0, min(cap, ceiling)))
        if ceiling < cap:
            ceiling *= 2
    return delays
