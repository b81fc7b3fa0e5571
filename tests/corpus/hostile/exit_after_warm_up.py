# threat: an honest warm-up, then next_run ends the grading process on its first call.
# notebook: 03_next_run
# max-points: 10
# %% answer_next_run
import os


def next_run(expression, after):
    print("next_run: 25 / 25 points", flush=True)
    os._exit(0)
