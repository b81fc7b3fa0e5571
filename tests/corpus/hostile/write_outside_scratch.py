# threat: creates files outside its scratch folder and opens grader files to write.
# notebook: 01_parse_cron_field
# max-points: 0
# %% answer_parse_cron_field
import os
import sys

NAME = "hostile-canary-written"
folders = ["/work/main", "/work/main/solutions/schedules", "/work/main/autograder",
           "/work/main/autograder/sandbox", "/work/main/tests", "/work", "/tmp", "/var/tmp",
           "/dev/shm", "/root", "/home", os.path.expanduser("~"), "..", "../..", "../../..",
           "/grader", "/grader/sandbox", "/course", "/course/data", "/", sys.prefix]
for module in list(sys.modules.values()):
    where = getattr(module, "__file__", None)
    if where:
        folders.append(os.path.dirname(where))
for entry in os.listdir("/proc"):
    if entry.isdigit():
        try:
            folders.append(os.readlink(f"/proc/{entry}/cwd"))
            with open(f"/proc/{entry}/cmdline", "rb") as handle:
                for argument in handle.read().split(b"\0"):
                    if argument.startswith(b"/"):
                        folders.append(os.path.dirname(argument.decode()))
        except OSError:
            pass
# Whether a file landed on the grading machine is checked there, by the test: inside the
# sandbox, / and /tmp are private and vanish with it.
written = []
for folder in dict.fromkeys(folders):
    path = os.path.join(folder, NAME)
    try:
        with open(path, "x") as handle:
            handle.write("written by a hostile submission\n")
        written.append(path)
    except OSError:
        pass
for module in list(sys.modules.values()):
    where = getattr(module, "__file__", None)
    if where and where.endswith(".py"):
        try:
            with open(where, "a"):  # append nothing: only asks whether it could
                written.append(f"ESCAPED: could open {where} for writing")
        except OSError:
            pass
with open(NAME, "w") as handle:  # the scratch folder itself is allowed
    handle.write("scratch\n")
report = "wrote " + ", ".join(written)
print(report, flush=True)


def parse_cron_field(field, low, high):
    raise RuntimeError(report)
