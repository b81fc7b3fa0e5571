# Bug: depth-first search from each job in alphabetical order: every job comes after its
# dependencies, but a job's dependencies jump ahead of alphabetically earlier ready jobs.
# notebook: 04_run_order
# loses: test_run_order
# %% answer_run_order
def run_order(tasks):
    order, state = [], {}

    def visit(job):
        if job not in tasks:
            raise ValueError(f"unknown job {job}")
        if state.get(job) == "visiting":
            raise ValueError("cycle detected")
        if state.get(job) == "done":
            return
        state[job] = "visiting"
        for need in sorted(tasks[job]):
            visit(need)
        state[job] = "done"
        order.append(job)

    for job in sorted(tasks):
        visit(job)
    return order
