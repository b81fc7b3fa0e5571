# Bug: uses the module-level generator (random.seed, random.uniform), which the notebook forbids,
# and puts its state back afterwards, so the state looks untouched.
# notebook: 05_backoff_delays
# loses: test_backoff_delays
# %% answer_backoff_delays
import random


def backoff_delays(attempts, base, cap, seed):
    if attempts < 0 or base < 0 or cap < 0:
        raise ValueError("attempts, base and cap must not be negative")
    saved = random.getstate()
    random.seed(seed)
    try:
        delays, ceiling = [], base
        for _ in range(attempts):
            delays.append(random.uniform(0, min(cap, ceiling)))
            if ceiling < cap:
                ceiling *= 2
        return delays
    finally:
        random.setstate(saved)
