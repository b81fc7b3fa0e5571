# Bug: a dependency listed twice is counted twice but released once, so its job never runs
# and the table is reported as a cycle.
# notebook: 04_run_order
# loses: test_run_order
# %% answer_run_order
import heapq


def run_order(tasks):
    for job, needs in tasks.items():
        for need in needs:
            if need not in tasks:
                raise ValueError(f"{job!r} waits for {need!r}, which is not a job")
    pending = {job: len(needs) for job, needs in tasks.items()}
    after = {job: set() for job in tasks}
    for job, needs in tasks.items():
        for need in needs:
            after[need].add(job)
    ready = sorted(job for job in tasks if pending[job] == 0)
    order = []
    while ready:
        job = heapq.heappop(ready)
        order.append(job)
        for later in sorted(after[job]):
            pending[later] -= 1
            if pending[later] == 0:
                heapq.heappush(ready, later)
    if len(order) != len(tasks):
        raise ValueError("cycle detected")
    return order
