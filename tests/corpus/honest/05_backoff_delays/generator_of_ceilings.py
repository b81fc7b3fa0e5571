# Honest: a generator yields the ceilings one after another (doubling until the cap, then
# the cap for ever), itertools.islice takes as many as there are attempts, and the delays
# are drawn from them in order.
# ruff: noqa: F821 (random comes from the notebook's setup cell)
# notebook: 05_backoff_delays
# %% answer_backoff_delays
from itertools import islice


def ceilings(base, cap):
    current = base
    while current < cap:
        yield current
        current *= 2
    while True:
        yield cap


def backoff_delays(attempts: int, base: float, cap: float, seed: int) -> list[float]:
    """Full-jitter backoff: delay i (from 0) is drawn uniformly from 0 to min(cap, base * 2 ** i)."""
    if attempts < 0:
        raise ValueError("attempts must not be negative")
    if base < 0 or cap < 0:
        raise ValueError("base and cap must not be negative")
    rng = random.Random(seed)
    return [rng.uniform(0, ceiling) for ceiling in islice(ceilings(base, cap), attempts)]
