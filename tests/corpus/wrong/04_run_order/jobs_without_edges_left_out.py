# Bug: the graph is built from its edges (each dependency to its job), as networkx's
# DiGraph(edges) would be, so a job that depends on nothing and that nothing depends on is left
# out of the order.
# notebook: 04_run_order
# loses: test_run_order
# %% answer_run_order edited
#     # New dictionaries only: `tasks` stays as it was. A dependency listed twice counts once.
#-    still_waiting_for = {job: len(set(dependencies)) for job, dependencies in tasks.items()}
#+    linked = {job for job, dependencies in tasks.items() if dependencies}
#+    linked |= {dependency for dependencies in tasks.values() for dependency in dependencies}
#+    still_waiting_for = {job: len(set(tasks[job])) for job in linked}
#     dependents: dict[str, list[str]] = {job: [] for job in tasks}
# @@
#-    if len(order) == len(tasks):
#+    if len(order) == len(linked):
#         return order
# @@
#     walk: list[str] = []
#-    job = min(filter(stuck, tasks))
#+    job = min(filter(stuck, linked))
#     while job not in walk:
