# Bug: sorts the caller's dependency lists in place (tidy, but the input is changed).
# notebook: 04_run_order
# loses: test_run_order
# %% answer_run_order
def run_order(tasks):
    for job in tasks:
        tasks[job].sort()
        for need in tasks[job]:
            if need not in tasks:
                raise ValueError(f"{job}: {need} is not a job")
    order, done = [], set()
    while len(order) < len(tasks):
        for job in sorted(tasks):
            if job not in done and done.issuperset(tasks[job]):
                break
        else:
            raise ValueError("cycle detected")
        order.append(job)
        done.add(job)
    return order
