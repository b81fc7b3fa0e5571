# threat: cells and function catch the time-limit exception and keep looping.
# notebook: 01_parse_cron_field
# max-points: 0
# ruff: noqa: E402 (each section is a notebook cell)
# %% answer_parse_cron_field
import signal

for number in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGUSR1, signal.SIGXCPU):
    signal.signal(number, signal.SIG_IGN)


def parse_cron_field(field, low, high):
    while True:
        try:
            while True:
                pass
        except BaseException:
            pass
# %% new
import time

deadline = time.monotonic() + 3
while time.monotonic() < deadline:
    try:
        while time.monotonic() < deadline:
            pass
    except BaseException:
        pass
