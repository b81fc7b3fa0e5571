# Honest: the table is copied with copy.deepcopy and the copy's lists are crossed off as
# jobs run (never the caller's); a depth-first search without recursion looks for a cycle
# before anything runs, and only then are the dependencies checked against the jobs.
# ruff: noqa: F821 (heapq comes from the notebook's setup cell)
# notebook: 04_run_order
# %% answer_run_order
import copy


def run_order(tasks: dict[str, list[str]]) -> list[str]:
    """Every job in `tasks` once, each after all of its dependencies; among ready jobs, the
    alphabetically first runs next."""
    table = copy.deepcopy(tasks)
    # Depth-first search with an explicit stack: grey jobs are on the current path.
    colour = {job: "white" for job in table}
    for root in table:
        if colour[root] != "white":
            continue
        colour[root] = "grey"
        stack = [(root, iter(table[root]))]
        while stack:
            job, needs = stack[-1]
            for need in needs:
                if need not in colour:
                    continue  # not a job: reported below
                if colour[need] == "grey":
                    raise ValueError(f"cycle detected: {need} waits for itself through {job}")
                if colour[need] == "white":
                    colour[need] = "grey"
                    stack.append((need, iter(table[need])))
                    break
            else:
                colour[job] = "black"
                stack.pop()
    for job, needs in table.items():
        missing = [need for need in needs if need not in table]
        if missing:
            raise ValueError(f"{job} needs {missing[0]}, but there is no such job")
    for job in table:
        table[job] = list(dict.fromkeys(table[job]))
    waited_on_by: dict[str, list[str]] = {job: [] for job in table}
    for job, needs in table.items():
        for need in needs:
            waited_on_by[need].append(job)
    order: list[str] = []
    ready = [job for job in table if not table[job]]
    heapq.heapify(ready)
    while ready:
        order.append(heapq.heappop(ready))
        for later in waited_on_by[order[-1]]:
            still_needs = table[later]
            still_needs.remove(order[-1])  # the copy's list, never the caller's
            if len(still_needs) == 0:
                heapq.heappush(ready, later)
    return order
