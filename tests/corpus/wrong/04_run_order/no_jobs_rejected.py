# Bug: an empty set of jobs is taken for a mistake and raises ValueError, where every job once
# in dependency order is simply no job at all: [].
# notebook: 04_run_order
# loses: test_run_order
# %% answer_run_order edited
#+import heapq
#+
#+
# def run_order(tasks: dict[str, list[str]]) -> list[str]:
# @@
#     alphabetically first runs next."""
#+    if not tasks:
#+        raise ValueError("there are no jobs to order")
#     for job, dependencies in tasks.items():
