# Bug: an empty set of jobs is taken for a mistake and raises ValueError, where every job once
# in dependency order is simply no job at all: [].
# notebook: 04_run_order
# loses: test_run_order
# %% answer_run_order
import heapq


def run_order(tasks: dict[str, list[str]]) -> list[str]:
    """Every job in `tasks` once, each after all of its dependencies; among ready jobs, the
    alphabetically first runs next."""
    if not tasks:
        raise ValueError("there are no jobs to order")
    for job, dependencies in tasks.items():
        for dependency in dependencies:
            if dependency not in tasks:
                raise ValueError(f"job {job!r} depends on {dependency!r}, which is not a job")
    # New dictionaries only: `tasks` stays as it was. A dependency listed twice counts once.
    still_waiting_for = {job: len(set(dependencies)) for job, dependencies in tasks.items()}
    dependents: dict[str, list[str]] = {job: [] for job in tasks}
    for job, dependencies in tasks.items():
        for dependency in set(dependencies):
            dependents[dependency].append(job)
    # A sorted list already satisfies the heap property.
    ready = sorted(job for job, count in still_waiting_for.items() if count == 0)
    order: list[str] = []
    while ready:
        job = heapq.heappop(ready)
        order.append(job)
        for dependent in dependents[job]:
            still_waiting_for[dependent] -= 1
            if still_waiting_for[dependent] == 0:
                heapq.heappush(ready, dependent)
    if len(order) == len(tasks):
        return order
    # Every job left waits for some other job left, so following those leads round a cycle.
    def stuck(job: str) -> bool:
        return still_waiting_for[job] > 0

    walk: list[str] = []
    job = min(filter(stuck, tasks))
    while job not in walk:
        walk.append(job)
        job = min(filter(stuck, tasks[job]))
    ring = walk[walk.index(job):] + [job]
    raise ValueError("cycle detected: " + " waits for ".join(ring))
