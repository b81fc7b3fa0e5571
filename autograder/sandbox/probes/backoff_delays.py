"""Probes for backoff_delays (notebook 05): its own seeded generator versus the module-level one.

Each probe observes only what its rule is about: whether the module-level `random` state is
as before, or whether the submission's own calls agree with each other (the same seed, the
same delays; the module-level state changed, the same delays) and give one delay per failure.
The delays themselves are never compared with the reference's here: the cases that call
backoff_delays directly judge the formula, so a formula bug costs only those. An untouched
stub raises, which fails every case.
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


# The module-level generator's functions, watched during a call: code that seeds it and puts
# its state back afterwards leaves the state as it was, but still uses it.
_MODULE_LEVEL = ("seed", "random", "uniform", "getstate", "setstate", "randint", "randrange",
                 "choice", "choices", "shuffle", "sample", "gauss", "getrandbits", "triangular",
                 "expovariate", "betavariate", "normalvariate")


@probe("backoff_delays.global_state_untouched")
def global_state_untouched(namespace: dict, attempts: int, base: float, cap: float, seed: int,
                           global_seed: int) -> dict[str, Any]:
    """Whether the module-level generator's state is as before one call (whatever it returned),
    and which of its functions the call used through the `random` module."""
    backoff_delays = lookup(namespace, "backoff_delays")
    saved = _global_state()
    used: list = []
    originals = {name: getattr(random, name) for name in _MODULE_LEVEL}
    try:
        _seed_global(global_seed)
        before = _global_state()
        for name, function in originals.items():
            setattr(random, name, _recording(name, function, used))
        try:
            backoff_delays(attempts, base, cap, seed)
        finally:
            for name, function in originals.items():
                setattr(random, name, function)
        untouched = _global_state() == before
    finally:
        _restore_global(saved)
    return {"module-level random state unchanged": untouched,
            "module-level random functions it called": sorted(set(used))}


def _recording(name: str, function: Any, used: list) -> Any:
    def recorded(*args: Any, **kwargs: Any) -> Any:
        used.append(name)
        return function(*args, **kwargs)

    return recorded


@probe("backoff_delays.same_seed_again")
def same_seed_again(namespace: dict, attempts: int, base: float, cap: float, seed: int,
                    other_seed: int) -> dict[str, Any]:
    """Three calls in a row: `seed`, then `other_seed`, then `seed` again. Observed: whether
    the third call gives the first call's delays, and how many delays each call gave."""
    backoff_delays = lookup(namespace, "backoff_delays")
    first = backoff_delays(attempts, base, cap, seed)
    between = backoff_delays(attempts, base, cap, other_seed)
    again = backoff_delays(attempts, base, cap, seed)
    return {"the same seed gave the same delays again": _same(first, again),
            "delays per call": [_count(delays) for delays in (first, between, again)]}


@probe("backoff_delays.ignores_global_state")
def ignores_global_state(namespace: dict, attempts: int, base: float, cap: float, seed: int,
                         global_seeds: list) -> dict[str, Any]:
    """The same call made after seeding the module-level generator with each of `global_seeds`.
    Observed: whether every call gave the first call's delays, and how many each gave."""
    backoff_delays = lookup(namespace, "backoff_delays")
    saved = _global_state()
    results = []
    try:
        for global_seed in global_seeds:
            _seed_global(global_seed)
            results.append(backoff_delays(attempts, base, cap, seed))
    finally:
        _restore_global(saved)
    return {"the same delays whatever the module-level state":
                all(_same(results[0], delays) for delays in results[1:]),
            "delays per call": [_count(delays) for delays in results]}


def _same(first: Any, other: Any) -> bool:
    """Whether two answers are the same delays: equal, element by element, as floats are (a
    list and a tuple of the same floats are the same delays; the cases about the result's type
    judge that). Never the same when either is not a list or tuple of numbers."""
    delays = _delays(first)
    return delays is not None and delays == _delays(other)


def _delays(answer: Any) -> list | None:
    """The answer's delays as a fresh list of plain floats, or None when it is not a list or
    tuple of numbers (a generator, for example, cannot be compared after the fact)."""
    if type(answer) not in (list, tuple):
        return None
    delays = []
    for delay in answer:
        if type(delay) not in (float, int):
            return None
        delays.append(float(delay))
    return delays


def _count(answer: Any) -> int | None:
    """How many delays the answer holds, or None when it is not a list or tuple of numbers."""
    delays = _delays(answer)
    return None if delays is None else len(delays)
