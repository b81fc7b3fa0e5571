# Honest: the hint's loop: a running ceiling that starts at min(cap, base) and doubles
# (never above the cap) after each draw, so nothing large is ever computed.
# ruff: noqa: F821 (random comes from the notebook's setup cell)
# notebook: 05_backoff_delays
# %% answer_backoff_delays
def backoff_delays(attempts: int, base: float, cap: float, seed: int) -> list[float]:
    """Full-jitter backoff: delay i (from 0) is drawn uniformly from 0 to min(cap, base * 2 ** i)."""
    if attempts < 0 or base < 0 or cap < 0:
        raise ValueError(f"attempts, base and cap must not be negative: {attempts}, {base}, {cap}")
    rng = random.Random(seed)
    delays = []
    ceiling = min(cap, base)
    for _ in range(attempts):
        delays.append(rng.uniform(0, ceiling))
        if ceiling < cap:
            ceiling = min(cap, ceiling * 2)
    return delays
