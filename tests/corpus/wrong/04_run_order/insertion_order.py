# Bug: ready jobs wait in a first-in-first-out queue, so ties go by the order jobs were listed.
# notebook: 04_run_order
# loses: test_run_order
# %% answer_run_order
from collections import deque


def run_order(tasks):
    for job, needs in tasks.items():
        for need in needs:
            if need not in tasks:
                raise ValueError(f"{job} depends on unknown job {need}")
    remaining = {job: len(set(needs)) for job, needs in tasks.items()}
    queue = deque(job for job in tasks if remaining[job] == 0)
    order = []
    while queue:
        job = queue.popleft()
        order.append(job)
        for other, needs in tasks.items():
            if job in needs:
                remaining[other] -= 1
                if remaining[other] == 0:
                    queue.append(other)
    if len(order) != len(tasks):
        raise ValueError("cycle detected")
    return order
