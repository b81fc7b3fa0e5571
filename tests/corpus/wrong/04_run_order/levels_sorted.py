# Bug: runs the graph level by level, each level sorted: valid, but not the alphabetical rule.
# notebook: 04_run_order
# loses: test_run_order
# %% answer_run_order
def run_order(tasks):
    for job in tasks:
        missing = [need for need in tasks[job] if need not in tasks]
        if missing:
            raise ValueError(f"{job} needs {missing[0]}, which is not a job")
    placed = set()
    order = []
    while len(placed) < len(tasks):
        level = sorted(job for job in tasks
                       if job not in placed and placed.issuperset(tasks[job]))
        if not level:
            raise ValueError("cycle detected")
        order.extend(level)
        placed.update(level)
    return order
