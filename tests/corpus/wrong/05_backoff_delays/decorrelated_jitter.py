# Bug: decorrelated jitter (base to three times the last wait) instead of full jitter.
# notebook: 05_backoff_delays
# loses: test_backoff_delays
# %% answer_backoff_delays
import random


def backoff_delays(attempts, base, cap, seed):
    if attempts < 0 or base < 0 or cap < 0:
        raise ValueError("negative argument")
    rng = random.Random(seed)
    delays = []
    previous = base
    for _ in range(attempts):
        previous = min(cap, rng.uniform(base, previous * 3))
        delays.append(previous)
    return delays
