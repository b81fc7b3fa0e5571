# threat: a correct but slow run_order (a list scanned for every dependency: the 1000-job case
# needs about 10 s of CPU against its 5 s), run in a grandchild whose parent ends at once (a
# double fork), so that the process computing is no longer under the case server. The notebook's
# process adopts such orphans (a subreaper), and the watcher counts every process under it.
# Only the large graphs go to a helper: two forks for every small case as well would cost more
# CPU than the whole notebook may use on a slow machine (the batch allows 8 s).
# notebook: 04_run_order
# max-points: as its answers alone
# answers-from: hostile/cpu_in_a_forked_child
# ruff: noqa: F821, E501, B905, E402, F811 (names come from the setup cells; cells import anew)
# %% new:answer_run_order
import json as _json
import os as _os
import resource as _resource

_slow = run_order


def run_order(tasks):
    if len(tasks) < 100:
        return _slow(tasks)
    r, w = _os.pipe()
    pid = _os.fork()
    if pid == 0:
        if _os.fork() != 0:
            _os._exit(0)  # the child ends at once: its child is an orphan
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
    _os.waitpid(pid, 0)
    chunks = []
    while True:
        block = _os.read(r, 65536)
        if not block:
            break
        chunks.append(block)
    _os.close(r)
    out = _json.loads(b"".join(chunks))
    if "err" in out:
        raise ValueError(out["err"])
    return out["ok"]
