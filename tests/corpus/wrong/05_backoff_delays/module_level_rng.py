# Bug: the generator is made once, on the first call; the same seed later gives other delays.
# notebook: 05_backoff_delays
# loses: test_backoff_delays
# %% answer_backoff_delays
import random

_rng = None


def backoff_delays(attempts, base, cap, seed):
    global _rng
    if attempts < 0 or base < 0 or cap < 0:
        raise ValueError("negative argument")
    if _rng is None:
        _rng = random.Random(seed)
    delays = []
    ceiling = base
    for _ in range(attempts):
        delays.append(_rng.uniform(0, min(cap, ceiling)))
        if ceiling < cap:
            ceiling *= 2
    return delays
