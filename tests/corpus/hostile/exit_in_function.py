# threat: the function calls sys.exit(0) and then os._exit(0) while it is tested.
# notebook: 01_parse_cron_field
# max-points: 0
# %% answer_parse_cron_field
import os
import sys

calls = []


def parse_cron_field(field, low, high):
    calls.append(field)
    if len(calls) < 5:
        sys.exit(0)
    os._exit(0)
