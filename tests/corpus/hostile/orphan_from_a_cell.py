# threat: a correct but slow run_order (the 1000-job case needs about 10 s of CPU against its
# 5 s), computed by a helper process a cell starts with a double fork (its parent ends at once,
# so it is no longer under the notebook's process) and which raises its own CPU limit: the
# graded function sends each case over a pipe and waits. The helper is ended before the tests
# (found by the notebook's own uid, or adopted by the notebook's process), so the function
# answers by itself, as its answer alone would.
# notebook: 04_run_order
# max-points: as its answers alone
# answers-from: hostile/cpu_in_a_forked_child
# ruff: noqa: F821, E501, B905, E402, F811 (names come from the setup cells; cells import anew)
# %% new:answer_run_order
import json as _json
import os as _os
import resource as _resource
import select as _select

_slow = run_order
_request_out, _request_in = _os.pipe()
_answer_out, _answer_in = _os.pipe()


def _serve(requests, answers):
    for line in requests:
        try:
            out = {"ok": _slow(_json.loads(line))}
        except ValueError as error:
            out = {"err": str(error)}
        answers.write(_json.dumps(out) + "\n")
        answers.flush()


if _os.fork() == 0:
    try:
        _os.setsid()
    except PermissionError:  # the sandbox refuses a new session: a process group of its own
        _os.setpgid(0, 0)
    if _os.fork() == 0:
        _soft, _hard = _resource.getrlimit(_resource.RLIMIT_CPU)
        _resource.setrlimit(_resource.RLIMIT_CPU, (_hard, _hard))
        _serve(_os.fdopen(_request_out), _os.fdopen(_answer_in, "w"))
    _os._exit(0)
_os.wait()
_requests, _answers = _os.fdopen(_request_in, "w"), _os.fdopen(_answer_out)


def run_order(tasks):
    """The big case is the helper's; when it does not answer in time (it was stopped), the
    answer is wrong, and the case fails as the slow answer alone fails it (out of time)."""
    if len(tasks) < 500:
        return _slow(tasks)
    _requests.write(_json.dumps(tasks) + "\n")
    _requests.flush()
    if _select.select([_answers], [], [], 15.0)[0]:
        line = _answers.readline()
        if line:
            out = _json.loads(line)
            if "err" in out:
                raise ValueError(out["err"])
            return out["ok"]
    return []
