# threat: draws from the module-level random and patches random's state functions to hide it.
# notebook: 05_backoff_delays
# max-points: as wrong/05_backoff_delays/global_random_seeded
# %% answer_backoff_delays
import random
import sys
import types

FROZEN = random.getstate()


def backoff_delays(attempts, base, cap, seed):
    if attempts < 0 or base < 0 or cap < 0:
        raise ValueError("negative argument")
    random.seed(seed)
    delays = []
    ceiling = base
    for _ in range(attempts):
        delays.append(random.uniform(0, min(cap, ceiling)))
        if ceiling < cap:
            ceiling *= 2
    return delays


# Lie about the module-level generator: its state never seems to change.
real_seed = random.seed
random.getstate = lambda: FROZEN
random.setstate = lambda state: None
random._inst.getstate = lambda: FROZEN
random._inst.setstate = lambda state: None
random.Random.getstate = lambda self: FROZEN
random.Random.__eq__ = lambda self, other: True
liar = types.ModuleType("random")
liar.__dict__.update(random.__dict__)
sys.modules["random"] = liar
