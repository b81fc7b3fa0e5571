"""Notebook 05 (backoff_delays): the hidden suite, the reference and the herd simulation."""

from __future__ import annotations

import random
import re
from fractions import Fraction
from pathlib import Path

import fixtures
import nbformat
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from autograder import reference, scoring
from autograder.notebook import extract
from autograder.rubric import exercise_for
from autograder.suites import backoff_delays as suite

EXERCISE = exercise_for("05_backoff_delays")
GRADE_ID = "test_backoff_delays"
CORPUS = Path(__file__).parent / "corpus" / "wrong" / "05_backoff_delays"
ENTRIES = fixtures.read_corpus(CORPUS)


@pytest.fixture(scope="module")
def backoff_delays():
    return reference.namespace(EXERCISE)["backoff_delays"]


def ceiling(base: float, cap: float, i: int) -> float:
    """min(cap, base * 2 ** i), computed exactly with fractions, so it never overflows."""
    return float(min(Fraction(cap), Fraction(base) * 2**i))


def independent_delays(attempts: int, base: float, cap: float, seed: int) -> list[float]:
    # uniform(0, c) is 0 + (c - 0) * random(), which is exactly c * random()
    rng = random.Random(seed)
    return [ceiling(base, cap, i) * rng.random() for i in range(attempts)]


# --- the hidden suite on known submissions -------------------------------------------------

def test_the_corpus_covers_the_pitfalls():
    names = {entry.name for entry in ENTRIES}
    assert {"global_random_seeded", "global_random_unseeded", "module_level_rng", "no_cap",
            "exponent_off_by_one", "equal_jitter", "overflow", "cap_after_jitter",
            "no_validation"} <= names


def failed_cases(entry_name: str) -> list[str]:
    entry = next(e for e in ENTRIES if e.name == entry_name)
    extracted = extract(fixtures.corpus_submission(entry), EXERCISE)
    namespace: dict = {"__name__": "__main__"}
    for source in extracted.prelude + [cell["source"] for cell in extracted.cells]:
        exec(compile(source, entry.name, "exec"), namespace)
    verdicts = scoring.grade_in_process(EXERCISE, namespace)[GRADE_ID]
    return [verdict.case.name for verdict in verdicts if not verdict.passed]


def test_seeding_the_module_level_generator_fails_only_the_state_check():
    # Its delays are right, so only the probe that watches random.getstate() catches it.
    assert failed_cases("global_random_seeded") == [
        "the module-level random state is untouched by a call"]


GENERATOR_CASES = {case.name for case in suite.CASES if case.probe != "call"}


@pytest.mark.parametrize("entry_name", ["exponent_off_by_one", "no_cap", "cap_after_jitter",
                                        "equal_jitter", "no_jitter", "rounded_to_milliseconds",
                                        "exponent_clamped", "overflow"])
def test_a_bug_in_the_delays_fails_none_of_the_generator_cases(entry_name):
    """The generator's cases compare the submission's own calls with each other (and watch the
    module-level state), never with the reference's delays: a wrong formula costs only the
    cases about the formula."""
    assert len(GENERATOR_CASES) == 3
    failed = failed_cases(entry_name)
    assert failed and not GENERATOR_CASES & set(failed), failed


def test_a_generator_made_once_fails_the_same_seed_check():
    assert ("the same seed gives the same delays again, even after a call with another seed"
            in failed_cases("module_level_rng"))


def test_overflow_fails_only_the_many_attempts_cases():
    assert sorted(failed_cases("overflow")) == sorted([
        "3000 attempts (base * 2 ** i as a float would overflow)",
        "a tiny base and a huge cap: the ceiling keeps doubling past 2 ** 1024"])


def test_the_state_probe_sees_a_changed_state_and_restores_it():
    from autograder.sandbox.probes import PROBES, load_all

    load_all()  # the grader imports the probes only where it runs them

    def leaky(attempts, base, cap, seed):
        random.seed(seed)
        return [random.uniform(0, min(cap, base * 2**i)) for i in range(attempts)]

    random.seed(5)
    outer = random.getstate()
    seen = PROBES["backoff_delays.global_state_untouched"]({"backoff_delays": leaky}, 3, 1.0, 8.0,
                                                           2, 99)
    assert seen["module-level random state unchanged"] is False
    assert random.getstate() == outer, "the probe must leave the test process's generator alone"


# --- the reference against an independent computation -------------------------------------

bases = st.floats(min_value=0, max_value=1e3, allow_nan=False, allow_infinity=False)
caps = st.floats(min_value=0, max_value=1e4, allow_nan=False, allow_infinity=False)
seeds = st.integers(min_value=0, max_value=2**64)


@settings(derandomize=True, max_examples=400, deadline=None)
@given(attempts=st.integers(0, 60), base=bases, cap=caps, seed=seeds)
def test_every_delay_lies_under_its_ceiling_and_matches(backoff_delays, attempts, base, cap, seed):
    delays = backoff_delays(attempts, base, cap, seed)
    assert type(delays) is list and len(delays) == attempts
    for i, delay in enumerate(delays):
        assert type(delay) is float
        assert 0 <= delay <= ceiling(base, cap, i)
    assert delays == independent_delays(attempts, base, cap, seed)


@settings(derandomize=True, max_examples=25, deadline=None)
@given(attempts=st.integers(1000, 4000),
       base=st.floats(min_value=1e-300, max_value=1e3),
       cap=st.floats(min_value=0, max_value=1e300),
       seed=seeds)
def test_thousands_of_attempts_never_overflow(backoff_delays, attempts, base, cap, seed):
    expected = independent_delays(attempts, base, cap, seed)
    assert backoff_delays(attempts, base, cap, seed) == expected


@settings(derandomize=True, max_examples=100, deadline=None)
@given(attempts=st.integers(0, 40), base=bases, cap=caps, seed=seeds, global_seed=seeds)
def test_the_module_level_generator_is_neither_used_nor_touched(
        backoff_delays, attempts, base, cap, seed, global_seed):
    random.seed(global_seed)
    state = random.getstate()
    first = backoff_delays(attempts, base, cap, seed)
    assert random.getstate() == state
    random.seed(global_seed + 1)
    assert backoff_delays(attempts, base, cap, seed) == first


@settings(derandomize=True, max_examples=100, deadline=None)
@given(short=st.integers(0, 30), extra=st.integers(0, 30), base=bases, cap=caps, seed=seeds)
def test_one_draw_per_attempt_in_order(backoff_delays, short, extra, base, cap, seed):
    assert backoff_delays(short, base, cap, seed) == \
        backoff_delays(short + extra, base, cap, seed)[:short]


negative = st.floats(max_value=-1e-12, min_value=-1e6)


@settings(derandomize=True, max_examples=60, deadline=None)
@given(which=st.sampled_from(["attempts", "base", "cap"]), amount=negative, seed=seeds)
def test_negative_arguments_are_rejected(backoff_delays, which, amount, seed):
    arguments = {"attempts": 3, "base": 0.5, "cap": 8.0}
    arguments[which] = min(-1, int(amount)) if which == "attempts" else amount
    with pytest.raises(ValueError):
        backoff_delays(arguments["attempts"], arguments["base"], arguments["cap"], seed)


# --- the herd simulation the notebook draws -------------------------------------------------

@pytest.fixture(scope="module")
def herd_model():
    notebook = nbformat.read(reference.SOLUTIONS / EXERCISE.path, as_version=4)
    [source] = [cell.source for cell in notebook.cells
                if cell.cell_type == "code" and "def simulate_herd" in cell.source]
    assert "matplotlib" not in source  # the model stays separate from the drawing
    namespace: dict = {"random": random}
    exec(compile(source, "herd simulation cell", "exec"), namespace)
    return namespace


def test_the_herd_without_jitter_spikes_higher_and_works_harder(herd_model):
    herd, busiest = herd_model["herd"], herd_model["busiest_retry_window"]
    capacity = herd_model["CAPACITY"]
    no_jitter, full = herd["no jitter"], herd["full jitter"]
    assert busiest(no_jitter["request_times"]) > 2 * busiest(full["request_times"])
    assert busiest(no_jitter["request_times"]) > 40 * capacity
    assert no_jitter["calls"] > 3 * full["calls"]
    assert no_jitter["finished"] > 10 * full["finished"]
    for strategy in ("full jitter", "equal jitter", "decorrelated jitter"):
        assert herd[strategy]["calls"] < no_jitter["calls"], strategy


def test_every_client_is_answered_and_the_runs_are_deterministic(herd_model):
    simulate = herd_model["simulate_herd"]
    for strategy in herd_model["STRATEGIES"]:
        run = simulate(120, strategy, seed=4)
        assert run == simulate(120, strategy, seed=4), strategy
        assert run["calls"] >= 120 and run["request_times"] == sorted(run["request_times"])
    assert herd_model["herd"] == {s: simulate(500, s, seed=1) for s in herd_model["STRATEGIES"]}


def test_the_simulated_full_jitter_wait_follows_the_exercise(herd_model):
    rng = random.Random(0)
    delay, base, cap = herd_model["herd_delay"], herd_model["BASE"], herd_model["CAP"]
    for failures in range(12):
        wait = delay("full jitter", failures, base, rng)
        assert 0 <= wait <= min(cap, base * 2**failures)
        assert delay("no jitter", failures, base, rng) == min(cap, base * 2**failures)


# --- the words of the student copy --------------------------------------------------------

def _student_markdown() -> str:
    notebook = nbformat.read(fixtures.RELEASE / EXERCISE.path, as_version=4)
    return "\n".join(cell.source for cell in notebook.cells if cell.cell_type == "markdown")


def test_the_exercise_defines_try_failure_delay_and_attempts_once():
    """`attempts` counts delays, one fewer than the tries (07 passes `max_tries - 1`): the
    exercise says so, and what a try, a failure and delay i are, before its rules."""
    text = " ".join(_student_markdown().split())
    exercise = text[text.index("## Exercise: `backoff_delays`"):]
    terms = exercise[:exercise.index("- delay `i` (counting from 0)")]
    for definition in ("A **try** is one request to the feed.",
                       "A **failure** is a try that failed; failures are numbered from 0.",
                       "**Delay `i`** is the wait after failure `i`, before the next try",
                       "**`attempts`** is the number of delays you ask for",
                       "`backoff_delays(n - 1, ...)`, as notebook 07 does with `max_tries - 1`"):
        assert definition in terms, definition


def test_attempt_is_never_a_word_of_the_prose():
    """Outside code (the argument `attempts`, a library's `max_attempts`), "attempt" would be a
    fourth name for a try, a retry or a delay: the prose says which one it means."""
    prose = re.sub(r"```.*?```|`[^`\n]*`", "", _student_markdown(), flags=re.DOTALL)
    prose = prose.replace("*attempt* for a try", "")  # the one place that names the word
    found = [prose[max(0, m.start() - 40):m.end() + 40]
             for m in re.finditer(r"\battempts?\b", prose, re.IGNORECASE)]
    assert not found, found
