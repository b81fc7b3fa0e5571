# Bug: jitter on the wrong quantity: draws under the uncapped ceiling, then clips to the cap.
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
        delays.append(min(cap, rng.uniform(0, ceiling)))
        if ceiling < 4 * cap:
            ceiling *= 2
    return delays
