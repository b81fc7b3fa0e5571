# Bug: "tidies" the caller's table first, tasks[job] = list(dict.fromkeys(needs)), so a list
# with a repeated dependency is changed (the input must not be modified).
# notebook: 04_run_order
# loses: test_run_order
# %% answer_run_order
import heapq


def run_order(tasks):
    for job in tasks:
        tasks[job] = list(dict.fromkeys(tasks[job]))
    for job, needs in tasks.items():
        for need in needs:
            if need not in tasks:
                raise ValueError(f"{job}: {need!r} is not a job")
    waiting = {job: len(needs) for job, needs in tasks.items()}
    dependents = {job: [] for job in tasks}
    for job, needs in tasks.items():
        for need in needs:
            dependents[need].append(job)
    ready = [job for job, count in waiting.items() if count == 0]
    heapq.heapify(ready)
    order = []
    while ready:
        job = heapq.heappop(ready)
        order.append(job)
        for other in dependents[job]:
            waiting[other] -= 1
            if waiting[other] == 0:
                heapq.heappush(ready, other)
    if len(order) != len(tasks):
        raise ValueError("cycle detected")
    return order
