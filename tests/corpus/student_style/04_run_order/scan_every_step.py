# Student style: at every step, scan all jobs for the ready ones and sort them (n^2 log n
# instead of n log n), copying the graph first so it is left untouched.
# notebook: 04_run_order
# %% answer_run_order
def run_order(tasks):
    for job, needs in tasks.items():
        for need in needs:
            if need not in tasks:
                raise ValueError(f"{job} depends on {need}, which is not a job")
    waiting = {job: set(needs) for job, needs in tasks.items()}
    order = []
    while waiting:
        ready = sorted(job for job, needs in waiting.items() if not needs)
        if not ready:
            raise ValueError("cycle detected among " + ", ".join(sorted(waiting)))
        job = ready[0]
        order.append(job)
        del waiting[job]
        for needs in waiting.values():
            needs.discard(job)
    return order
