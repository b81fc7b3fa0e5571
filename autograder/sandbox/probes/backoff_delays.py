"""Probes for backoff_delays (notebook 05): its own seeded generator versus the module-level one.

Each probe returns the delays it saw together with what it observed about the module-level
`random` generator, so a case passes only when both the delays and the observation agree
with the reference solution. An untouched stub raises, which fails every case.
"""

from __future__ import annotations

import random

from . import lookup, probe

TYPE_CHECKING = False  # no import of typing in the sandbox at run time
if TYPE_CHECKING:
    from typing import Any

# Taken when the grader starts, before any notebook code runs: a notebook that replaces
# random.getstate or random.seed cannot change what these probes see.
_seed_global = random.seed
_global_state = random.getstate
_restore_global = random.setstate


@probe("backoff_delays.global_state_untouched")
def global_state_untouched(namespace: dict, attempts: int, base: float, cap: float, seed: int,
                           global_seed: int) -> dict[str, Any]:
    """The delays of one call, and whether the module-level generator's state is as before."""
    backoff_delays = lookup(namespace, "backoff_delays")
    saved = _global_state()
    try:
        _seed_global(global_seed)
        before = _global_state()
        delays = backoff_delays(attempts, base, cap, seed)
        untouched = _global_state() == before
    finally:
        _restore_global(saved)
    return {"delays": delays, "module-level random state unchanged": untouched}


@probe("backoff_delays.same_seed_again")
def same_seed_again(namespace: dict, attempts: int, base: float, cap: float, seed: int,
                    other_seed: int) -> list:
    """Three calls in a row: `seed`, then `other_seed`, then `seed` again."""
    backoff_delays = lookup(namespace, "backoff_delays")
    first = backoff_delays(attempts, base, cap, seed)
    between = backoff_delays(attempts, base, cap, other_seed)
    again = backoff_delays(attempts, base, cap, seed)
    return [first, between, again]


@probe("backoff_delays.ignores_global_state")
def ignores_global_state(namespace: dict, attempts: int, base: float, cap: float, seed: int,
                         global_seeds: list) -> list:
    """The same call made after seeding the module-level generator with each of `global_seeds`."""
    backoff_delays = lookup(namespace, "backoff_delays")
    saved = _global_state()
    results = []
    try:
        for global_seed in global_seeds:
            _seed_global(global_seed)
            results.append(backoff_delays(attempts, base, cap, seed))
    finally:
        _restore_global(saved)
    return results
