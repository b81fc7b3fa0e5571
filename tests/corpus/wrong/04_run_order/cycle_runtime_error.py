# Bug: a cycle raises RuntimeError, which code that catches ValueError does not expect.
# notebook: 04_run_order
# loses: test_run_order
# %% answer_run_order
import heapq
from collections import Counter, defaultdict


def run_order(tasks):
    if any(need not in tasks for needs in tasks.values() for need in needs):
        raise ValueError(f"a dependency is not a job: {sorted(tasks.items())}")
    edges = {(need, job) for job, needs in tasks.items() for need in needs}
    indegree = Counter(job for _, job in edges)
    children = defaultdict(list)
    for need, job in edges:
        children[need].append(job)
    heap = [job for job in tasks if indegree[job] == 0]
    heapq.heapify(heap)
    result = []
    while heap:
        result.append(heapq.heappop(heap))
        for child in children[result[-1]]:
            indegree[child] -= 1
            if indegree[child] == 0:
                heapq.heappush(heap, child)
    if len(result) != len(tasks):
        raise RuntimeError("cycle detected")
    return result
