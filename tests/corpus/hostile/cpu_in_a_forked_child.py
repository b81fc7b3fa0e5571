# threat: a correct but slow run_order (a list scanned for every dependency: the 1000-job case
# needs about 10 s of CPU against its 5 s), run in a forked child that raises its own CPU limit and
# sends the answer back over a pipe, so that the case server's CPU time stays low. The watcher
# counts the CPU time of every process the case server started.
# notebook: 04_run_order
# max-points: as its answers alone
# ruff: noqa: F821, E501, B905, E402, F811 (names come from the setup cells; cells import anew)
# %% answer_run_order
def run_order(tasks):
    for job, deps in tasks.items():
        for d in deps:
            if d not in tasks:
                raise ValueError(f"{job!r} depends on {d!r}, which is not a job")
    order, done = [], []          # a list: membership is a scan (the honest slowness)
    remaining = sorted(tasks)
    while remaining:
        for _ in range(2):  # looked at twice, to be sure
            ready = [job for job in remaining if sum(done.count(d) for d in tasks[job]) == len(tasks[job]) and all(d in done for d in tasks[job])]
        if not ready:
            raise ValueError(f"cycle detected among {remaining[:5]}")
        job = min(ready)
        order.append(job)
        done.append(job)
        remaining.remove(job)
    return order
# %% new:answer_run_order
import json as _json
import os as _os
import resource as _resource

_slow = run_order


def run_order(tasks):
    r, w = _os.pipe()
    pid = _os.fork()
    if pid == 0:
        _os.close(r)
        try:
            soft, hard = _resource.getrlimit(_resource.RLIMIT_CPU)
            _resource.setrlimit(_resource.RLIMIT_CPU, (hard, hard))
            out = {"ok": _slow(tasks)}
        except ValueError as error:
            out = {"err": str(error)}
        data = _json.dumps(out).encode()
        while data:
            data = data[_os.write(w, data):]
        _os._exit(0)
    _os.close(w)
    chunks = []
    while True:
        block = _os.read(r, 65536)
        if not block:
            break
        chunks.append(block)
    _os.close(r)
    _os.waitpid(pid, 0)
    out = _json.loads(b"".join(chunks))
    if "err" in out:
        raise ValueError(out["err"])
    return out["ok"]
