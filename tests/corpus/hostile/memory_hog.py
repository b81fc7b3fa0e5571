# threat: allocates and writes 4 GiB at top level and inside the function.
# notebook: 01_parse_cron_field
# max-points: 0
# %% answer_parse_cron_field
hog = []


def grab(gib):
    for _ in range(gib * 16):
        hog.append(b"x" * (64 * 2**20))  # written, so every page is really used
    print(f"ESCAPED: held {len(hog) * 64} MiB without being stopped", flush=True)


def parse_cron_field(field, low, high):
    grab(4)
    raise RuntimeError(f"ESCAPED: held {len(hog) * 64} MiB")


try:
    grab(4)
except MemoryError:
    hog.clear()
