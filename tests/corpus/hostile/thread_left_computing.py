# threat: a correct but slow run_order (the 1000-job case needs about 10 s of CPU against its
# 5 s), computed by a thread a cell leaves running in the notebook's process: the graded function
# sends each case over a pipe and waits, so the case server uses no CPU. Before the tests, the
# notebook's process forks a child without threads to run them, and stops itself with its
# threads for good; the function then answers by itself, as its answer alone would.
# notebook: 04_run_order
# max-points: as its answers alone
# answers-from: hostile/cpu_in_a_forked_child
# ruff: noqa: F821, E501, B905, E402, F811 (names come from the setup cells; cells import anew)
# %% new:answer_run_order
import json as _json
import os as _os
import select as _select
import threading as _threading

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


_threading.Thread(target=_serve, args=(_os.fdopen(_request_out), _os.fdopen(_answer_in, "w")),
                  daemon=True).start()
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
