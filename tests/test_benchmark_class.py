"""The benchmark's classes: a corpus entry added later changes a class only where it is drawn,
so figures measured before and after it compare like with like."""

import os
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
environment = dict(os.environ)
import grading_throughput  # noqa: E402

os.environ.clear()
os.environ.update(environment)  # the benchmark sets PATH and MPLBACKEND for its own run


def draws(options: list[str], seed: int = 2024, count: int = 400) -> list[str]:
    rng = random.Random(seed)
    return [grading_throughput.stable_choice(rng, options) for _ in range(count)]


def test_a_new_option_changes_only_the_draws_it_wins():
    options = [f"wrong/01/entry_{number}" for number in range(12)]
    before = draws(options)
    after = draws([*options, "wrong/01/a_new_entry"])
    changed = [(old, new) for old, new in zip(before, after, strict=True) if old != new]
    assert changed, "the new entry is never drawn"
    assert all(new == "wrong/01/a_new_entry" for _, new in changed)
    assert len(changed) < len(before) / 4  # about one draw in 13


def test_the_draws_after_one_do_not_depend_on_its_options():
    """600 options need 10 random bits, and a draw of them is thrown away and made again 41% of
    the time: a draw that took a number of bits of its own would shift the draws after it."""
    for seed in range(50):
        rng_small, rng_large = random.Random(seed), random.Random(seed)
        grading_throughput.stable_choice(rng_small, ["a"])
        grading_throughput.stable_choice(rng_large, [str(n) for n in range(600)])
        assert rng_small.random() == rng_large.random(), seed
