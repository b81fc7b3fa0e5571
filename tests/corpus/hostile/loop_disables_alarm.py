# threat: the function ignores, blocks and clears SIGALRM, then loops forever.
# notebook: 01_parse_cron_field
# max-points: 0
# %% answer_parse_cron_field
import signal


def parse_cron_field(field, low, high):
    signal.signal(signal.SIGALRM, signal.SIG_IGN)
    signal.setitimer(signal.ITIMER_REAL, 0)
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM, signal.SIGTERM, signal.SIGINT})
    while True:
        pass
