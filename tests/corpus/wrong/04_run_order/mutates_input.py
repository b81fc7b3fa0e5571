# Bug: crosses finished jobs off the caller's own lists and deletes the caller's keys.
# notebook: 04_run_order
# loses: test_run_order
# %% answer_run_order
def run_order(tasks):
    for job, needs in tasks.items():
        for need in needs:
            if need not in tasks:
                raise ValueError(f"dependency {need} of {job} is not a job")
    order = []
    while tasks:
        ready = sorted(job for job, needs in tasks.items() if not needs)
        if not ready:
            raise ValueError("cycle detected")
        job = ready[0]
        order.append(job)
        del tasks[job]
        for needs in tasks.values():
            while job in needs:
                needs.remove(job)
    return order
