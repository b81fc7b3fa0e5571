# Bug: ties between ready jobs are broken ignoring case (key=str.lower), not in Python's string
# order, where every capital letter comes before every lower-case one ("Prices" < "audit").
# notebook: 04_run_order
# loses: test_run_order
# %% answer_run_order
import heapq


def run_order(tasks):
    for job, needs in tasks.items():
        for need in needs:
            if need not in tasks:
                raise ValueError(f"{job}: {need!r} is not a job")
    waiting = {job: len(set(needs)) for job, needs in tasks.items()}
    dependents = {job: [] for job in tasks}
    for job, needs in tasks.items():
        for need in set(needs):
            dependents[need].append(job)
    ready = [(job.lower(), job) for job, count in waiting.items() if count == 0]
    heapq.heapify(ready)
    order = []
    while ready:
        _, job = heapq.heappop(ready)
        order.append(job)
        for other in dependents[job]:
            waiting[other] -= 1
            if waiting[other] == 0:
                heapq.heappush(ready, (other.lower(), other))
    if len(order) != len(tasks):
        raise ValueError("cycle detected")
    return order
