# Bug: rounds every delay to whole milliseconds, so the delays are no longer the generator's draws.
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
        delays.append(round(rng.uniform(0, min(cap, ceiling)), 3))
        if ceiling < cap:
            ceiling *= 2
    return delays
