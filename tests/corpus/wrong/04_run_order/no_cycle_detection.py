# Bug: stops when nothing is ready and returns the jobs that could run, silently.
# notebook: 04_run_order
# loses: test_run_order
# %% answer_run_order
import heapq


def run_order(tasks):
    for needs in tasks.values():
        for need in needs:
            if need not in tasks:
                raise ValueError(f"{need!r} is not a job")
    counts = {job: len(set(needs)) for job, needs in tasks.items()}
    heap = [job for job, count in counts.items() if count == 0]
    heapq.heapify(heap)
    order = []
    while heap:
        job = heapq.heappop(heap)
        order.append(job)
        for other, needs in tasks.items():
            if job in needs:
                counts[other] -= 1
                if counts[other] == 0:
                    heapq.heappush(heap, other)
    return order
