# Bug: accepts negative arguments: attempts=-1 quietly gives [], a negative cap negative delays.
# notebook: 05_backoff_delays
# loses: test_backoff_delays
# %% answer_backoff_delays
import random


def backoff_delays(attempts, base, cap, seed):
    rng = random.Random(seed)
    delays = []
    ceiling = base
    for _ in range(attempts):
        delays.append(rng.uniform(0, min(cap, ceiling)))
        if ceiling < cap:
            ceiling *= 2
    return delays
