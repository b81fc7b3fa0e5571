# Bug: an unknown dependency is never checked and surfaces as a KeyError from a lookup.
# notebook: 04_run_order
# loses: test_run_order
# %% answer_run_order
import heapq


def run_order(tasks):
    waiting = {job: len(set(needs)) for job, needs in tasks.items()}
    followers = {job: [] for job in tasks}
    for job, needs in tasks.items():
        for need in set(needs):
            followers[need].append(job)
    heap = sorted(job for job in tasks if waiting[job] == 0)
    order = []
    while heap:
        job = heapq.heappop(heap)
        order.append(job)
        for follower in followers[job]:
            waiting[follower] -= 1
            if not waiting[follower]:
                heapq.heappush(heap, follower)
    if len(order) < len(tasks):
        raise ValueError("cycle detected")
    return order
