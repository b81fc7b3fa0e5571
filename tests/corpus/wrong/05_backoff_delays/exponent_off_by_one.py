# Bug: off-by-one exponent: base * 2 ** (i + 1), so the first window is twice too wide.
# notebook: 05_backoff_delays
# loses: test_backoff_delays
# %% answer_backoff_delays
import random


def backoff_delays(attempts, base, cap, seed):
    if attempts < 0 or base < 0 or cap < 0:
        raise ValueError("negative argument")
    rng = random.Random(seed)
    delays = []
    ceiling = base * 2
    for _ in range(attempts):
        delays.append(rng.uniform(0, min(cap, ceiling)))
        if ceiling < cap:
            ceiling *= 2
    return delays
