# Bug: the dependencies are checked only once an order is found; when the jobs are stuck, the
# walk that names the cycle follows every dependency, an unknown one too, and fails with a
# KeyError on a table that has both a cycle and a dependency that is not a job.
# notebook: 04_run_order
# loses: test_run_order
# %% answer_run_order
import heapq


def run_order(tasks):
    waiting = {job: len({need for need in needs if need in tasks}) for job, needs in tasks.items()}
    followers = {job: [] for job in tasks}
    for job, needs in tasks.items():
        for need in set(needs):
            if need in tasks:
                followers[need].append(job)
    ready = sorted(job for job, count in waiting.items() if count == 0)
    order = []
    while ready:
        job = heapq.heappop(ready)
        order.append(job)
        for follower in followers[job]:
            waiting[follower] -= 1
            if waiting[follower] == 0:
                heapq.heappush(ready, follower)
    if len(order) < len(tasks):
        done = set(order)
        walk = [min(job for job in tasks if job not in done)]
        while True:
            following = min(need for need in tasks[walk[-1]] if need not in done)
            if following in walk:
                ring = walk[walk.index(following):] + [following]
                raise ValueError("cycle detected: " + " waits for ".join(ring))
            walk.append(following)
    for job, needs in tasks.items():
        for need in needs:
            if need not in tasks:
                raise ValueError(f"{job!r} depends on {need!r}, which is not a job")
    return order
