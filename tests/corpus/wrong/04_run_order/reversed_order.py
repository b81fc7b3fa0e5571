# Bug: the right order, returned backwards (each job before the jobs it depends on).
# notebook: 04_run_order
# loses: test_run_order
# %% answer_run_order
def run_order(tasks):
    for needs in tasks.values():
        for need in needs:
            if need not in tasks:
                raise ValueError(f"unknown dependency {need!r}")
    finished = []
    while len(finished) < len(tasks):
        candidates = sorted(job for job in tasks
                            if job not in finished and all(n in finished for n in tasks[job]))
        if not candidates:
            raise ValueError("cycle detected")
        finished.append(candidates[0])
    return finished[::-1]
