# Bug: a base of 0 is rejected with the negative ones, but only a negative base is bad input:
# a base of 0 makes every delay 0.0.
# ruff: noqa: F821 (random comes from the notebook's setup cell)
# notebook: 05_backoff_delays
# loses: test_backoff_delays
# %% answer_backoff_delays
def backoff_delays(attempts: int, base: float, cap: float, seed: int) -> list[float]:
    if attempts < 0 or cap < 0:
        raise ValueError(f"attempts and cap must not be negative: {attempts}, {cap}")
    if base <= 0:
        raise ValueError(f"base must be a positive number of seconds, got {base}")
    rng = random.Random(seed)
    delays = []
    ceiling = min(cap, base)
    for _ in range(attempts):
        delays.append(rng.uniform(0, ceiling))
        if ceiling < cap:
            ceiling = min(cap, ceiling * 2)
    return delays
