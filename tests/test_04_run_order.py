"""Notebook 04 (run_order): the hidden suite, its wrong-solution corpus, an oracle, the figure."""

import copy
import json
import random
import re
from itertools import pairwise
from pathlib import Path

import fixtures
import networkx as nx
import pytest

from autograder import scoring
from autograder.reference import REPOSITORY, namespace
from autograder.rubric import exercise_for
from autograder.suites import run_order as suite

EXERCISE = exercise_for("04_run_order")
FULL = {"test_run_order": 25}
CORPUS = fixtures.read_corpus(Path(__file__).parent / "corpus" / "wrong" / "04_run_order")

# A correct but quadratic solution, the textbook loop: the suite asks for the right answers,
# not for a heap, so it must earn every point.
TEXTBOOK_LOOP = '''
def run_order(tasks):
    for job, needs in tasks.items():
        for need in needs:
            if need not in tasks:
                raise ValueError(f"{need!r} is not a job")
    order, done = [], set()
    while len(order) < len(tasks):
        ready = [job for job in tasks if job not in done and all(n in done for n in tasks[job])]
        if not ready:
            raise ValueError("cycle detected")
        order.append(min(ready))
        done.add(order[-1])
    return order
'''


@pytest.fixture(scope="module")
def reference_run_order():
    return namespace(EXERCISE)["run_order"]


def test_the_textbook_loop_earns_full_points():
    submission = fixtures.build_submission(EXERCISE, {"answer_run_order": TEXTBOOK_LOOP})
    assert fixtures.score_in_process(submission, EXERCISE) == FULL


def test_a_constant_answer_earns_no_valid_input_points():
    """On a valid graph the input probe also observes which jobs came back, so `return []`
    gains nothing there. On a graph it must reject only the input is observed, which
    `return []` leaves alone; those cases are rejections, and the gate opens for it because
    it answers every valid case and gets `run_order({})` right."""
    submission = fixtures.build_submission(
        EXERCISE, {"answer_run_order": "def run_order(tasks):\n    return []"})
    points = fixtures.score_in_process(submission, EXERCISE)["test_run_order"]
    total = sum(case.weight for case in suite.CASES)
    empty_right = sum(case.weight for case in suite.CASES
                      if case.probe == "call" and case.args == ({},))
    left_alone = sum(case.weight for case in suite.CASES
                     if case.probe == "run_order.input_after_call" and case.rejection)
    assert points == pytest.approx(25 * (empty_right + left_alone) / total, abs=0.01)


def failed_cases(entry_name: str) -> list:
    """The cases a corpus entry fails, graded in this process."""
    entry = next(e for e in CORPUS if e.name == entry_name)
    verdicts = fixtures.verdicts_in_process(fixtures.corpus_submission(entry), EXERCISE)
    return [verdict.case for verdict in verdicts["test_run_order"] if not verdict.passed]


@pytest.mark.parametrize(("entry_name", "rules"), [
    ("no_cycle_detection", {suite.CYCLE}), ("cycle_runtime_error", {suite.CYCLE}),
    ("unknown_dependency_ignored", {suite.UNKNOWN}),
    ("unknown_dependency_key_error", {suite.UNKNOWN, suite.BOTH}),
    ("cycle_named_before_dependencies_checked", {suite.BOTH})])
def test_a_bug_in_rejecting_bad_graphs_costs_only_the_rejection_cases(entry_name, rules):
    """The not-modified cases observe the input after the call, whatever the call did: a
    function that returns instead of raising, or raises the wrong class, leaves it as it was.
    (A KeyError for an unknown dependency is one for a table that also has a cycle, too.)"""
    failed = failed_cases(entry_name)
    assert failed and {case.rule for case in failed} == rules, [c.name for c in failed]


def test_the_corpus_has_every_classic_bug():
    names = {entry.name for entry in CORPUS}
    assert {"insertion_order", "alphabetically_last", "reversed_order", "no_cycle_detection",
            "cycle_runtime_error", "unknown_dependency_ignored", "unknown_dependency_key_error",
            "mutates_input", "duplicate_counted_twice", "self_loop_ignored",
            "dedupes_input_in_place", "case_insensitive"} <= names


# --- the reference against networkx -------------------------------------------------------

def random_tasks(rng: random.Random) -> dict[str, list[str]]:
    """Small random tables: DAGs, cycles, self-loops and repeated dependencies, in any order."""
    count = rng.randint(0, 14)
    names = rng.sample([f"{a}{b}" for a in "abcdxyz" for b in "0123"], count)
    tasks = {name: rng.sample(names[:i], rng.randint(0, min(i, 3))) for i, name in enumerate(names)}
    if count and rng.random() < 0.3:  # a back edge, maybe a self-loop: most likely a cycle
        later = rng.randrange(count)
        tasks[names[rng.randrange(later + 1)]].append(names[later])
    if count and rng.random() < 0.2:  # a dependency listed twice
        job = rng.choice(names)
        if tasks[job]:
            tasks[job].append(rng.choice(tasks[job]))
    return {name: tasks[name] for name in rng.sample(names, count)}


def as_graph(tasks: dict[str, list[str]]) -> nx.DiGraph:
    graph = nx.DiGraph()
    graph.add_nodes_from(tasks)
    graph.add_edges_from((need, job) for job, needs in tasks.items() for need in needs)
    return graph


def test_reference_matches_networkx_on_generated_tables(reference_run_order):
    rng = random.Random(404)
    cycles = orders = 0
    for _ in range(4000):
        tasks = random_tasks(rng)
        before = copy.deepcopy(tasks)
        graph = as_graph(tasks)
        if nx.is_directed_acyclic_graph(graph):
            assert reference_run_order(tasks) == list(nx.lexicographical_topological_sort(graph))
            orders += 1
        else:
            with pytest.raises(ValueError, match="cycle detected"):
                reference_run_order(tasks)
            cycles += 1
        assert tasks == before and list(tasks) == list(before)
    assert orders > 1000 and cycles > 500  # both kinds were really tried


def test_reference_names_an_unknown_dependency(reference_run_order):
    rng = random.Random(405)
    for _ in range(300):
        tasks = random_tasks(rng)
        if not tasks:
            continue
        job = rng.choice(list(tasks))
        tasks[job] = [*tasks[job], "vendor_feed"]
        with pytest.raises(ValueError, match="vendor_feed"):
            reference_run_order(tasks)


def test_reference_cycle_message_names_a_real_cycle(reference_run_order):
    rng = random.Random(406)
    for _ in range(500):
        tasks = random_tasks(rng)
        if nx.is_directed_acyclic_graph(as_graph(tasks)):
            continue
        with pytest.raises(ValueError) as raised:
            reference_run_order(tasks)
        ring = str(raised.value).removeprefix("cycle detected: ").split(" waits for ")
        assert ring[0] == ring[-1]
        assert all(need in tasks[job] for job, need in pairwise(ring)), str(raised.value)


def test_the_suite_generator_makes_what_the_case_names_say():
    for graph in [*suite.GENERATED_DAGS, suite.LARGE_DAG]:
        assert nx.is_directed_acyclic_graph(as_graph(graph))
    assert len(suite.LARGE_DAG) == 1000
    for graph in suite.GENERATED_CYCLES:
        assert not nx.is_directed_acyclic_graph(as_graph(graph))
    # The generated cases are where insertion order, levels and depth-first search part ways.
    for graph in suite.GENERATED_DAGS[2:]:
        alphabetical = list(nx.lexicographical_topological_sort(as_graph(graph)))
        assert alphabetical != list(nx.topological_sort(as_graph(graph)))


def test_the_trading_jobs_file_is_a_dag_the_suite_uses(repository):
    jobs = json.loads((repository / "data" / "trading_jobs.json").read_text())
    assert jobs["jobs"] == suite.TRADING_JOBS
    assert set(jobs["descriptions"]) == set(jobs["jobs"])
    assert nx.is_directed_acyclic_graph(as_graph(jobs["jobs"]))


# --- the notebook's own cells: the run-order drawing and the levels ------------------------

@pytest.fixture(scope="module")
def notebook_namespace():
    """Run the source notebook's cells in order, except the grade cell and the timing cell."""
    import matplotlib.pyplot as plt

    yield fixtures.run_source_notebook(EXERCISE)
    plt.close("all")


def test_the_drawing_numbers_every_trading_job_in_run_order(notebook_namespace):
    tasks = notebook_namespace["TRADING_JOBS"]
    expected = list(nx.lexicographical_topological_sort(as_graph(tasks)))
    drawing = next(fig for fig in notebook_namespace["figures"]
                   if "overnight" in fig.axes[0].get_title())
    labels = {text.get_text() for text in drawing.axes[0].texts if text.get_text()}
    assert labels == {f"{number}. {job}" for number, job in enumerate(expected, start=1)}
    arrows = [child for child in drawing.axes[0].get_children()
              if type(child).__name__ == "Annotation" and child.get_text() == ""]
    assert len(arrows) == sum(len(needs) for needs in tasks.values())


def test_the_levels_are_networkx_generations(notebook_namespace):
    tasks = notebook_namespace["TRADING_JOBS"]
    generations = [set(g) for g in nx.topological_generations(as_graph(tasks))]
    assert [set(level) for level in notebook_namespace["levels"]] == generations
    where = notebook_namespace["where"]
    assert all(where[job][0] == n for n, level in enumerate(generations) for job in level)


def test_the_notebook_states_the_large_graph_and_its_time_limit_as_the_suite_has_them():
    """The student copy promises "a generated graph of 1,000 jobs ... within 5 seconds":
    the suite's graph and that case's time limit must stay what it says."""
    (large,) = [case for case in suite.CASES if "1000 jobs" in case.name]
    assert len(suite.LARGE_DAG) == 1000
    assert large.timeout == 5.0
    text = Path("notebooks/schedules/04_run_order.ipynb")
    shown = " ".join(json.dumps(json.loads((REPOSITORY / text).read_text())["cells"]).split())
    assert "1,000 jobs" in shown and "within 5 seconds" in shown


def test_the_hand_run_table_is_what_run_order_does(notebook_namespace, reference_run_order):
    """The Markdown table that runs the morning jobs by hand, step by step: the ready jobs, the
    one that runs (the order run_order gives) and how many jobs each job waiting for it still
    waits for. Typed by hand, so held here to the reference."""
    notebook = json.loads((REPOSITORY / "notebooks" / EXERCISE.path).read_text())
    text = next("".join(cell["source"]) for cell in notebook["cells"]
                if "Running the morning table by hand" in "".join(cell["source"]))
    rows = [[part.strip() for part in line.strip("|").split("|")]
            for line in text.splitlines() if re.match(r"\| \d+ \|", line)]
    morning = notebook_namespace["morning"]
    order = reference_run_order(morning)
    assert [row[2].strip("*") for row in rows] == order
    done: set[str] = set()
    for step, ready, runs, now_waiting in rows:
        assert ready.split(", ") == sorted(job for job in morning if job not in done
                                           and set(morning[job]) <= done), f"step {step}"
        done.add(runs.strip("*"))
        stated = {job: int(count) for job, count in re.findall(r"(\w+): (\d+)", now_waiting)}
        waiting = {job: len(set(needs) - done) for job, needs in morning.items()
                   if runs.strip("*") in needs}
        assert stated == waiting, f"step {step}: {now_waiting!r}, but {waiting}"
    assert "nothing waits for report" in rows[-1][3]


@pytest.mark.fast
def test_a_table_that_is_wrong_twice_accepts_either_error_and_names_both_when_neither_came():
    """The two hidden cases for a cycle and an unknown dependency at once: a ValueError that
    mentions either is right; one that mentions neither is told what it should mention."""
    cases = [case for case in suite.CASES if case.rule == suite.BOTH]
    assert len(cases) == 2 and all(case.any_mention for case in cases)
    case = cases[0]
    unknown = case.message_contains[1]
    expected = {"raised": "ValueError", "mro": ["ValueError"], "message": f"unknown {unknown}"}

    def said(message: str, mro: tuple[str, ...] = ("ValueError",)) -> tuple[bool, str]:
        return scoring.judge(case, expected, {"raised": mro[0], "mro": list(mro),
                                              "message": message})

    assert said("cycle detected: risk -> limits -> risk")[0]
    assert said(f"risk depends on {unknown!r}, which is not a job")[0]
    passed, told = said("bad table")
    assert not passed and f"should mention 'cycle detected' or {unknown!r}" in told
    assert not said("cycle detected", mro=("KeyError", "LookupError"))[0]
