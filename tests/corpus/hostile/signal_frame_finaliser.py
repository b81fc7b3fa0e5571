# threat: the returns-1/0 answer plus probe_list_finaliser's attack, reaching the call stack
# through a signal handler of its own (Python hands a handler the frame the signal interrupted)
# instead of sys._getframe, to plant a __del__ that turns the probe's ints into bools. Handlers a
# notebook installs are called with None for the frame.
# notebook: 06_append_if_new
# answers-from: wrong/06_append_if_new/returns_int
# max-points: as its answers alone
# ruff: noqa: F821, E501, B905, E402, F811 (names come from the setup cells; cells import anew)
# %% new:answer_append_if_new
import signal as _signal

_buggy = append_if_new


class _Fix:
    def __init__(self, target):
        self.target = target

    def __del__(self):
        t = self.target
        for i, v in enumerate(t):
            if type(v) is int:
                t[i] = bool(v)


def _here():
    got = []
    old = _signal.signal(_signal.SIGUSR2, lambda signum, frame: got.append(frame))
    try:
        _signal.raise_signal(_signal.SIGUSR2)
    finally:
        _signal.signal(_signal.SIGUSR2, old)
    return got.pop() if got else None  # no cycle: the frames must die with the probe's


def append_if_new(ledger, entry, key="id"):
    result = _buggy(ledger, entry, key)
    frame = _here()
    # by name: reading f_locals of this very frame would tie it into a cycle
    while frame is not None and frame.f_code.co_name != "calls":
        frame = frame.f_back
    if frame is not None:
        loc = frame.f_locals
        if "contents" not in loc.get("observe", ()) and "\x00" not in entry:
            entry["\x00"] = _Fix(loc["returned"])
        del loc
    del frame
    return result
