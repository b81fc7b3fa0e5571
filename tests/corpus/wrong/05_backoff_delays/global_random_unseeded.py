# Bug: draws from the module-level generator and ignores the seed: delays nobody can reproduce.
# notebook: 05_backoff_delays
# loses: test_backoff_delays
# %% answer_backoff_delays
import random


def backoff_delays(attempts, base, cap, seed):
    if attempts < 0 or base < 0 or cap < 0:
        raise ValueError("negative argument")
    delays = []
    ceiling = base
    for _ in range(attempts):
        delays.append(random.uniform(0, min(cap, ceiling)))
        if ceiling < cap:
            ceiling *= 2
    return delays
