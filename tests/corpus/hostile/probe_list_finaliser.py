# threat: the returns-1/0 answer plus a cell that walks up the call stack to the probe's list of
# answers and plants an object with __del__ in the entry dicts, which turns that list's ints into
# bools when the probe's frame ends, after it built its observation and before it is encoded.
# The call stack is out of reach while grading (sys._getframe raises ValueError).
# notebook: 06_append_if_new
# answers-from: wrong/06_append_if_new/returns_int
# max-points: 0
# ruff: noqa: F821, E501, B905, E402, F811 (names come from the setup cells; cells import anew)
# %% new:answer_append_if_new
import sys as _sys

_buggy = append_if_new


class _Fix:
    def __init__(self, target):
        self.target = target

    def __del__(self):
        t = self.target
        for i, v in enumerate(t):
            if type(v) is int:
                t[i] = bool(v)


def append_if_new(ledger, entry, key="id"):
    result = _buggy(ledger, entry, key)
    frame = _sys._getframe(1)
    while frame is not None and "returned" not in frame.f_locals:
        frame = frame.f_back
    if frame is not None:
        loc = frame.f_locals
        if "contents" not in loc.get("observe", ()) and "\x00" not in entry:
            entry["\x00"] = _Fix(loc["returned"])
    return result
