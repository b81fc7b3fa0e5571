# Bug: the right order, returned backwards (each job before the jobs it depends on).
# notebook: 04_run_order
# loses: test_run_order
# %% answer_run_order edited
#     if len(order) == len(tasks):
#-        return order
#+        return order[::-1]
