# Honest: math.ldexp with the `math` the setup cell imports (as it does `random`), and no
# import of its own; an exponent whose ldexp would overflow a float is far above any cap.
# ruff: noqa: F821 (math and random come from the notebook's setup cell)
# notebook: 05_backoff_delays
# %% answer_backoff_delays
def backoff_delays(attempts: int, base: float, cap: float, seed: int) -> list[float]:
    if attempts < 0 or base < 0 or cap < 0:
        raise ValueError(f"attempts, base and cap must not be negative: {attempts}, {base}, {cap}")
    rng = random.Random(seed)
    delays = []
    for i in range(attempts):
        try:
            ceiling = min(cap, math.ldexp(base, i))
        except OverflowError:
            ceiling = cap
        delays.append(rng.uniform(0, ceiling))
    return delays
