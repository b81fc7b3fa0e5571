# Bug: a dependency that is not a job is skipped, so a typo silently drops it.
# notebook: 04_run_order
# loses: test_run_order
# %% answer_run_order
def run_order(tasks):
    known = {job: [need for need in needs if need in tasks] for job, needs in tasks.items()}
    done, order = set(), []
    while len(order) < len(known):
        ready = [job for job in known if job not in done and all(n in done for n in known[job])]
        if not ready:
            raise ValueError("cycle detected")
        order.append(min(ready))
        done.add(order[-1])
    return order
