# Bug: the generator is made once, on the first call; the same seed later gives other delays.
# notebook: 05_backoff_delays
# loses: test_backoff_delays
# keeps-state: its generator lives on between calls, so its score depends on the calls before
# the hidden tests: nbgrader's stock in-kernel grading runs the notebook's self-checks first, the
# sandbox runs only the student's cells
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
