# Bug: among the ready jobs, the alphabetically last runs next (max instead of min).
# notebook: 04_run_order
# loses: test_run_order
# %% answer_run_order
def run_order(tasks):
    unknown = [need for needs in tasks.values() for need in needs if need not in tasks]
    if unknown:
        raise ValueError(f"not a job: {unknown[0]}")
    done, order = set(), []
    while len(order) < len(tasks):
        ready = [job for job in tasks if job not in done and set(tasks[job]) <= done]
        if not ready:
            raise ValueError("cycle detected")
        job = max(ready)
        done.add(job)
        order.append(job)
    return order
