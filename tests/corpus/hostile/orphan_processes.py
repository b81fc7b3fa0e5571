# threat: leaves a double-forked sleeper, a detached subprocess and a busy thread.
# notebook: 01_parse_cron_field
# max-points: 0
# %% answer_parse_cron_field
import os
import signal
import subprocess
import sys
import threading
import time

MARK = "hostile-orphan"  # the test looks for processes with this name after the batch


def linger(seconds):
    for number in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
        signal.signal(number, signal.SIG_IGN)
    try:
        with open("/proc/self/comm", "w") as comm:
            comm.write(MARK)
    except OSError:
        pass
    time.sleep(seconds)


def double_fork():
    try:
        child = os.fork()
    except OSError:
        return
    if child == 0:
        try:
            os.setsid()
        except PermissionError:  # the sandbox refuses a new session: a process group of its own
            os.setpgid(0, 0)
        try:
            if os.fork() == 0:
                linger(120)
        finally:
            os._exit(0)
    os.waitpid(child, 0)


double_fork()
for alone in ({"start_new_session": True}, {"process_group": 0}):  # refused: the next way
    try:
        subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)", MARK],
                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, **alone)
        break
    except OSError:
        pass
threading.Thread(target=lambda: [None for _ in iter(int, 1)], daemon=True).start()


def parse_cron_field(field, low, high):
    double_fork()
    raise NotImplementedError()
