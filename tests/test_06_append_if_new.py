"""Notebook 06 append_if_new: its hidden suite, its wrong-solution corpus, and its reference."""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path

import nbformat
import pytest
from fixtures import (
    build_submission,
    corpus_submission,
    read_corpus,
)
from hypothesis import given, settings
from hypothesis import strategies as st

from autograder import reference
from autograder.notebook import extract
from autograder.rubric import exercise_for
from autograder.sandbox.harness import run_case, run_cell
from autograder.scoring import grade_in_process
from autograder.suite import case_id, cases_for, expected_outcomes, load_all

EXERCISE = exercise_for("06_append_if_new")
ITEM = EXERCISE.items[0]
CORPUS = Path(__file__).parent / "corpus" / "wrong" / EXERCISE.notebook
ENTRIES = read_corpus(CORPUS)


@pytest.fixture(scope="module")
def append_if_new():
    return reference.namespace(EXERCISE)["append_if_new"]


def test_corpus_covers_the_pitfalls_the_notebook_names():
    names = {entry.name for entry in ENTRIES}
    for pitfall in ["replaces_existing", "returns_int", "returns_none_for_duplicate",
                    "builds_new_list", "compares_whole_dicts", "ignores_key",
                    "missing_key_checked_late"]:
        assert pitfall in names


def verdicts_for(notebook) -> list:
    extracted = extract(notebook, EXERCISE)
    namespace: dict = {"__name__": "__main__"}
    for source in [*extracted.prelude, *(cell["source"] for cell in extracted.cells)]:
        assert run_cell(namespace, source, "cell", 30.0) is None
    return grade_in_process(EXERCISE, namespace)[ITEM.grade_id]


@pytest.mark.parametrize("name", ["always_equal_return", "returns_int",
                                  "returns_none_for_duplicate"])
def test_every_case_that_checks_return_values_catches_a_fake_bool(name):
    entry = next(entry for entry in ENTRIES if entry.name == name)
    for verdict in verdicts_for(corpus_submission(entry)):
        checks_returns = verdict.case.probe == "append_if_new.many" or (
            verdict.case.probe == "append_if_new.calls" and "returned" in verdict.case.args[2])
        assert verdict.passed is not checks_returns, verdict.case.name


MISSING_KEY = [case for case in cases_for(ITEM) if case.probe == "append_if_new.missing_key"]


def test_an_answer_built_on_a_new_list_keeps_the_missing_key_cases():
    """builds_new_list raises ValueError for an entry without the key as it should: the
    missing-key cases observe only that, not what happened to the ledger before."""
    entry = next(entry for entry in ENTRIES if entry.name == "builds_new_list")
    failed = {v.case.name for v in verdicts_for(corpus_submission(entry)) if not v.passed}
    assert len(MISSING_KEY) >= 4
    assert failed and not failed & {case.name for case in MISSING_KEY}


def test_an_answer_that_only_rejects_a_missing_key_earns_nothing():
    """The missing-key cases are rejections: they earn only next to correct work."""
    assert all(case.rejection for case in MISSING_KEY)
    only_rejects = ("def append_if_new(ledger, entry, key='id'):\n"
                    "    if key not in entry:\n"
                    "        raise ValueError(f'no {key}')\n"
                    "    return True\n")
    notebook = build_submission(EXERCISE, {"answer_append_if_new": only_rejects})
    verdicts = verdicts_for(notebook)
    assert sum(v.points for v in verdicts) == 0
    assert all(v.gated for v in verdicts if v.case in MISSING_KEY)


def test_cases_give_the_same_outcomes_after_a_json_round_trip():
    """The sandbox receives each case as JSON; the probes must not depend on shared objects."""
    load_all()  # the grader imports the probes only where it runs them
    namespace = reference.namespace(EXERCISE)
    pairs = zip(cases_for(ITEM), expected_outcomes(ITEM.grade_id), strict=True)
    for index, (case, expected) in enumerate(pairs):
        job = json.loads(json.dumps(case.job(case_id(ITEM, index))))
        assert run_case(namespace, job) == expected, case.name


def test_no_case_of_the_reference_raises():
    """Every case observes a value, so the stub's NotImplementedError can never match."""
    for case, outcome in zip(cases_for(ITEM), expected_outcomes(ITEM.grade_id), strict=True):
        assert "value" in outcome, f"{case.name}: {outcome}"


def entries_of(case) -> list[tuple[dict, str]]:
    """Every entry a case puts in a ledger or passes in, with the key it is read by."""
    if case.probe == "append_if_new.missing_key":
        ledger, good, bad, key, _ = case.args
        return [(entry, key or "id") for entry in [*ledger, good, bad]]
    if case.probe == "append_if_new.calls":
        ledger, steps, _ = case.args
        return [(entry, "id") for entry in ledger] + [
            (step["entry"], step.get("key") or "id") for step in steps if "entry" in step]
    return []  # append_if_new.many: ids "run-000000" ... made by the probe


def test_every_identifier_of_the_cases_can_be_a_dictionary_key():
    """The student copy promises that an identifier is never a list or a dict, so that keeping
    the identifiers seen in a set is an honest answer (tests/corpus/honest/06_append_if_new/
    set_of_identifiers.py); no case may break that promise."""
    identifiers = [(case.name, entry[key]) for case in cases_for(ITEM)
                   for entry, key in entries_of(case) if key in entry]
    assert len(identifiers) > 100
    unhashable = []
    for name, identifier in identifiers:
        try:
            hash(identifier)  # a list, a dict, or a tuple holding one cannot be a key
        except TypeError:
            unhashable.append((name, identifier))
    assert not unhashable


# Property tests: the reference against a model that keeps a dict of the identifiers seen.

IDENTIFIERS = st.sampled_from([None, 0, 1, "1", "", "run-0930", "run-0935", ("book_fills", 1),
                               ("book_fills", 2), -7, 10**20])
MISSING = object()


@st.composite
def scenarios(draw):
    key = draw(st.sampled_from(["id", "run_id"]))
    other = "run_id" if key == "id" else "id"
    # Entries already in the ledger: some without the key (they never match).
    start, seen_at_start = [], {}
    for number in range(draw(st.integers(0, 6))):
        if draw(st.booleans()):
            start.append({"note": f"manual {number}", other: draw(IDENTIFIERS)})
        else:
            identifier = draw(IDENTIFIERS)
            if identifier in seen_at_start:
                continue  # a ledger built by append_if_new holds each identifier once
            seen_at_start[identifier] = True
            start.append({key: identifier, "qty": number})
    deliveries = []
    for attempt in range(draw(st.integers(0, 25))):
        identifier = draw(st.one_of(IDENTIFIERS, st.just(MISSING))) if attempt % 7 == 3 \
            else draw(IDENTIFIERS)
        entry = {"attempt": attempt, other: draw(IDENTIFIERS)}
        if identifier is not MISSING:
            entry[key] = identifier
        deliveries.append(entry)
    how = draw(st.sampled_from(["keyword", "positional", "default"] if key == "id"
                               else ["keyword", "positional"]))
    return key, start, deliveries, how


@settings(derandomize=True, max_examples=400, deadline=None)
@given(scenarios())
def test_reference_matches_a_model_of_seen_identifiers(append_if_new, scenario):
    key, start, deliveries, how = scenario
    ledger = list(start)
    snapshot = copy.deepcopy(start)
    model = {entry[key]: entry for entry in start if key in entry}  # identifier -> first entry
    expected_objects = list(start)
    for entry in deliveries:
        arguments = {"keyword": ((ledger, entry), {"key": key}),
                     "positional": ((ledger, entry, key), {}),
                     "default": ((ledger, entry), {})}[how]
        if key not in entry:
            with pytest.raises(ValueError, match=key):
                append_if_new(*arguments[0], **arguments[1])
            continue
        returned = append_if_new(*arguments[0], **arguments[1])
        is_new = entry[key] not in model
        assert returned is is_new
        if is_new:
            model[entry[key]] = entry
            expected_objects.append(entry)
        assert len(ledger) == len(expected_objects)
        assert all(got is want for got, want in zip(ledger, expected_objects, strict=True))
    assert ledger[:len(start)] == snapshot  # the entries already there keep their contents


def test_reference_on_a_long_random_day(append_if_new):
    """Thousands of seeded deliveries with repeats: one entry per identifier, first wins."""
    rng = random.Random(20240301)
    ledger, first_seen = [], {}
    for attempt in range(5000):
        entry = {"id": f"run-{rng.randrange(800):04d}", "attempt": attempt}
        returned = append_if_new(ledger, entry)
        assert returned is (entry["id"] not in first_seen)
        first_seen.setdefault(entry["id"], entry)
    assert [entry["id"] for entry in ledger] == list(first_seen)
    assert all(got is want for got, want in zip(ledger, first_seen.values(), strict=True))


# The simulated day the notebook plots.

def simulation_namespace() -> dict:
    """Run the source notebook's worked-example cells up to the simulation (no figures)."""
    notebook = nbformat.read(reference.SOLUTIONS / EXERCISE.path, as_version=4)
    namespace: dict = {}
    for cell in notebook.cells:
        if cell.cell_type != "code" or "matplotlib" in cell.source:
            continue
        exec(compile(cell.source, "<notebook 06>", "exec"), namespace)
        if "def simulate_deliveries" in cell.source:
            return namespace
    raise AssertionError("the notebook defines no simulate_deliveries")


def test_the_simulated_day_has_duplicates_that_append_if_new_removes(append_if_new):
    simulate = simulation_namespace()["simulate_deliveries"]
    scheduled, deliveries = simulate()
    assert (scheduled, deliveries) == simulate(), "the simulation must be deterministic"
    assert len({run["id"] for run in scheduled}) == len(scheduled) == 78
    assert len(deliveries) > len(scheduled) + 5, "the figure needs visible duplicates"
    assert any(delivery["attempt"] == "replay" for delivery in deliveries)
    assert {delivery["id"] for delivery in deliveries} == {run["id"] for run in scheduled}
    ledger = []
    for delivery in deliveries:
        append_if_new(ledger, delivery)
    assert [entry["id"] for entry in ledger] == [run["id"] for run in scheduled]
    true_position = sum(run["qty"] for run in scheduled)
    assert sum(entry["qty"] for entry in ledger) == true_position
    assert sum(delivery["qty"] for delivery in deliveries) != true_position
