# Bug: graphlib's static_order: a valid order but not the alphabetical one; unknown
# dependencies become jobs, and a cycle's message says "nodes are in a cycle".
# notebook: 04_run_order
# loses: test_run_order
# %% answer_run_order
import graphlib


def run_order(tasks):
    return list(graphlib.TopologicalSorter(tasks).static_order())
