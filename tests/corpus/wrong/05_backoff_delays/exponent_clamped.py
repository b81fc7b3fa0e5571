# Bug: avoids overflow by clamping the exponent at 60, so a tiny base never reaches a large cap.
# notebook: 05_backoff_delays
# loses: test_backoff_delays
# %% answer_backoff_delays
import random


def backoff_delays(attempts, base, cap, seed):
    if attempts < 0 or base < 0 or cap < 0:
        raise ValueError("negative argument")
    rng = random.Random(seed)
    return [rng.uniform(0, min(cap, base * 2 ** min(i, 60))) for i in range(attempts)]
