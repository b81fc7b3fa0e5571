# Honest: a list comprehension over i, with base * 2 ** i computed by math.ldexp; when that
# would overflow a float it is far above any cap, so the ceiling is the cap. Each draw is
# rng.random() scaled by the ceiling, which is what rng.uniform(0, ceiling) computes.
# ruff: noqa: F821 (random comes from the notebook's setup cell)
# notebook: 05_backoff_delays
# %% answer_backoff_delays
import math


def backoff_delays(attempts, base, cap, seed):
    for name, value in (("attempts", attempts), ("base", base), ("cap", cap)):
        if value < 0:
            raise ValueError(f"{name} must be 0 or more, got {value}")

    def ceiling(i):
        try:
            return min(cap, math.ldexp(base, i))
        except OverflowError:
            return cap

    rng = random.Random(seed)
    return [ceiling(i) * rng.random() for i in range(attempts)]
