"""Hidden tests for backoff_delays (notebook 05, 25 points)."""

from autograder.suite import Case, call

F = "backoff_delays"


# The rules of the exercise section, word for word.
DRAW = "delay `i` (counting from 0) is `rng.uniform(0, min(cap, base * 2 ** i))`"
SEEDED = ("`rng = random.Random(seed)` is made **inside** the call, and there is exactly **one "
          "draw per delay, in order**")
GLOBAL = ("the module-level generator is never used or re-seeded: no `random.seed`, no "
          "`random.uniform`")
ZERO = "`attempts == 0` gives `[]`"
NEGATIVE = "a negative `attempts`, `base` or `cap` raises `ValueError`"
ZERO_ALLOWED = ("0 is allowed for each of them: a `base` or a `cap` of 0 makes every ceiling 0, "
                "so every delay is `0.0`")
MANY = "thousands of delays work: no `OverflowError`, whatever `attempts` is"
FLOATS = "the result is a `list` of `float`s, even when `base` and `cap` are whole numbers"


def delays(attempts, base, cap, seed, name: str, weight: float = 1.0, *, rule: str,
           **options) -> Case:
    return call(F, attempts, base, cap, seed, name=name, weight=weight, rule=rule, **options)


CASES = [
    # exact sequences: one draw per delay, in order, from random.Random(seed)
    delays(5, 0.1, 10.0, 42, "five delays for seed 42, all below the cap", weight=2, rule=SEEDED),
    delays(1, 2.0, 30.0, 0, "the first delay is drawn from 0 to base (the exponent starts at 0)",
           weight=1.5, rule=DRAW),
    delays(10, 0.5, 4.0, 7, "once base * 2 ** i passes the cap, every delay is drawn up to the cap",
           weight=2, rule=DRAW),
    delays(3, 10.0, 2.5, 11, "a base above the cap: the cap limits even the first delay",
           weight=1.5, rule=DRAW),
    delays(12, 0.05, 1.0, 3, "twelve delays for seed 3", weight=1, rule=SEEDED),
    delays(6, 0.25, 100.0, 123456789, "a large seed", weight=1, rule=SEEDED),
    delays(8, 1, 60, 2024, "a whole-number base and cap still give a list of floats", weight=1,
           rule=FLOATS),
    delays(4, 3.0, 0.0, 1, "a cap of 0 gives delays of 0.0", weight=0.5, rule=ZERO_ALLOWED),
    delays(4, 0.0, 8.0, 9, "a base of 0 gives delays of 0.0", weight=0.5, rule=ZERO_ALLOWED),
    delays(0, 1.0, 10.0, 5, "zero attempts give an empty list", weight=1, rule=ZERO),
    # many attempts
    delays(3000, 0.1, 30.0, 5, "3000 attempts (base * 2 ** i as a float would overflow)",
           weight=2, rule=MANY),
    delays(2100, 1e-300, 1e300, 4,
           "a tiny base and a huge cap: the ceiling keeps doubling past 2 ** 1024", weight=1,
           rule=MANY),
    # the generator: seeded inside the call, the module-level one left alone
    Case(name="the module-level random state is untouched by a call",
         probe="backoff_delays.global_state_untouched", args=(6, 0.5, 8.0, 3, 99), weight=3,
         shows="random.seed(99); backoff_delays(6, 0.5, 8.0, 3); "
               "random.getstate() compared before and after, and the random module's "
               "functions it calls", rule=GLOBAL),
    Case(name="the same seed gives the same delays again, even after a call with another seed",
         probe="backoff_delays.same_seed_again", args=(8, 0.2, 5.0, 17, 18), weight=2,
         shows="[backoff_delays(8, 0.2, 5.0, 17), backoff_delays(8, 0.2, 5.0, 18), "
               "backoff_delays(8, 0.2, 5.0, 17)]", rule=SEEDED),
    Case(name="the delays do not depend on the module-level random state",
         probe="backoff_delays.ignores_global_state", args=(5, 1.0, 20.0, 8, [1, 2, 3]),
         weight=2,
         shows="backoff_delays(5, 1.0, 20.0, 8) after random.seed(1), random.seed(2), "
               "random.seed(3)", rule=SEEDED),
    # bad arguments
    delays(-1, 1.0, 10.0, 0, "a negative number of attempts is rejected", weight=1, rule=NEGATIVE),
    delays(3, -0.5, 10.0, 0, "a negative base is rejected", weight=1, rule=NEGATIVE),
    delays(3, 1.0, -10.0, 0, "a negative cap is rejected", weight=1, rule=NEGATIVE),
]
