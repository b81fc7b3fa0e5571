# Honest: no heap and no counts: after every job, the list of jobs whose dependencies have
# all run is built again and sorted, and its first job runs. An empty list while jobs are
# left means a cycle, unless one of them waits for something that is not a job at all.
# notebook: 04_run_order
# %% answer_run_order
def run_order(tasks):
    done = set()
    order = []
    waiting = sorted(tasks)
    while waiting:
        ready = sorted(job for job in waiting if all(need in done for need in tasks[job]))
        if not ready:
            for job in waiting:
                for need in tasks[job]:
                    if need not in tasks:
                        raise ValueError(f"unknown dependency {need!r} of {job!r}")
            raise ValueError(f"Cycle detected among {', '.join(waiting)}")
        order.append(ready[0])
        done.add(ready[0])
        waiting.remove(ready[0])
    return order
