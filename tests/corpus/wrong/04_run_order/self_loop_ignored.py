# Bug: a job that depends on itself is quietly allowed instead of reported as a cycle.
# notebook: 04_run_order
# loses: test_run_order
# %% answer_run_order
def run_order(tasks):
    for needs in tasks.values():
        for need in needs:
            if need not in tasks:
                raise ValueError(f"unknown dependency: {need}")
    others = {job: {need for need in needs if need != job} for job, needs in tasks.items()}
    order, done = [], set()
    while len(order) < len(tasks):
        ready = sorted(job for job in others if job not in done and others[job] <= done)
        if not ready:
            raise ValueError("cycle detected")
        order.append(ready[0])
        done.add(ready[0])
    return order
