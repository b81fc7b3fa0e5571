# threat: sys.exit() in the answer cell and os._exit() in a cell of the student's own.
# notebook: 01_parse_cron_field
# max-points: 0
# ruff: noqa: E402 (each section is a notebook cell)
# %% answer_parse_cron_field
import sys


def parse_cron_field(field, low, high):
    raise NotImplementedError()


sys.exit(0)
# %% new
import os

print('{"score": 25, "max_score": 25}', flush=True)
os._exit(0)
