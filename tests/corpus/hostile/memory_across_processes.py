# threat: 8 forked children of 200 MiB each together hold over twice the memory limit.
# notebook: 01_parse_cron_field
# max-points: 0
# needs-root: a memory limit across processes needs a control group, which only root makes
# %% answer_parse_cron_field
import os
import time

BLOCK_MIB = 200
report = "not tried yet"


def hold():
    global report
    report = "tried"
    reports = []
    for _ in range(8):
        read_end, write_end = os.pipe()
        try:
            pid = os.fork()
        except OSError:
            break
        if pid == 0:
            held = []
            try:
                for _ in range(BLOCK_MIB // 50):
                    held.append(b"x" * (50 * 2**20))  # written, so the pages are really used
            except MemoryError:
                pass
            os.write(write_end, str(len(held) * 50).encode().ljust(8))
            try:
                with open("/proc/self/comm", "w") as comm:
                    comm.write("hostile-orphan")
            except OSError:
                pass
            time.sleep(15)
            os._exit(0)
        os.close(write_end)
        reports.append((read_end, pid))
    said = [int(os.read(read_end, 8).strip() or 0) for read_end, _ in reports]
    time.sleep(0.5)
    # Only children still alive hold their memory: a memory limit across processes ends some
    # (the largest first) after they said what they held.
    total = sum(held for held, (_, pid) in zip(said, reports, strict=True)
                if os.waitpid(pid, os.WNOHANG) == (0, 0))
    report = f"held {total} MiB at once in {len(reports)} processes"
    if total > 1024:
        report = "ESCAPED: " + report
    print(report, flush=True)


def parse_cron_field(field, low, high):
    if report == "not tried yet":
        hold()
    raise RuntimeError(report)
