# Honest: the ceiling compared exactly, with fractions.Fraction and Python's unbounded
# integers, and the exponent held at 2100 (2 ** -1074, the smallest float, times 2 ** 2100
# is above the largest float, so the cap is reached by then whatever base is).
# ruff: noqa: F821 (random comes from the notebook's setup cell)
# notebook: 05_backoff_delays
# %% answer_backoff_delays
from fractions import Fraction


def backoff_delays(attempts: int, base: float, cap: float, seed: int) -> list[float]:
    if min(attempts, base, cap) < 0:
        raise ValueError("attempts, base and cap cannot be negative")
    rng = random.Random(seed)
    result = []
    for i in range(attempts):
        exact = Fraction(base) * 2 ** min(i, 2100)
        ceiling = float(min(exact, Fraction(cap)))
        result.append(rng.uniform(0, ceiling))
    return result
