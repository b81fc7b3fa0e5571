# Honest: graphlib.TopologicalSorter used as its documentation says (prepare, get_ready,
# done), with the jobs it hands out kept in a heap so that the alphabetically first ready
# job runs next; unknown dependencies are checked first (graphlib would add them as jobs),
# and its CycleError is turned into the notebook's "cycle detected" message.
# ruff: noqa: F821 (heapq comes from the notebook's setup cell)
# notebook: 04_run_order
# %% answer_run_order
import graphlib


def run_order(tasks: dict[str, list[str]]) -> list[str]:
    """Every job in `tasks` once, each after all of its dependencies; among ready jobs, the
    alphabetically first runs next."""
    for job, needs in tasks.items():
        for need in needs:
            if need not in tasks:
                raise ValueError(f"{job} depends on {need}, which is not a job")
    sorter = graphlib.TopologicalSorter()
    for job, needs in tasks.items():
        sorter.add(job, *set(needs))
    try:
        sorter.prepare()
    except graphlib.CycleError as error:
        raise ValueError(f"cycle detected: {' -> '.join(error.args[1])}") from None
    ready: list[str] = []
    order = []
    while sorter.is_active():
        for job in sorter.get_ready():
            heapq.heappush(ready, job)
        job = heapq.heappop(ready)
        order.append(job)
        sorter.done(job)
    return order
