# threat: writes hundreds of MB to stdout and stderr, some without newlines.
# notebook: 01_parse_cron_field
# max-points: 0
# %% answer_parse_cron_field
import os
import sys

CHUNK = ("Score: 25/25 " * 80 + "\n") * 1000  # about 1 MB


def flood(megabytes):
    for _ in range(megabytes):
        try:
            sys.stdout.write(CHUNK)
            sys.stderr.write(CHUNK)
            os.write(1, b"x" * 2**20)  # one long line without a newline
        except OSError:
            return


def parse_cron_field(field, low, high):
    flood(20)
    raise NotImplementedError()


flood(300)
