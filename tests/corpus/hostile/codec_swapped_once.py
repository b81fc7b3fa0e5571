# threat: the returns-1/0 answer plus a cell whose wrapper, during each call, swaps the sandbox's
# plain.to_plain for a one-shot stand-in that puts the original back as soon as the probe encodes
# its observation, after rewriting the ints to bools: the guard's check after the case would find
# everything as it was. The check before the observation is encoded finds the stand-in.
# notebook: 06_append_if_new
# answers-from: wrong/06_append_if_new/returns_int
# max-points: 0
# ruff: noqa: F821, E501, B905, E402, F811 (names come from the setup cells; cells import anew)
# %% new:answer_append_if_new
import sys as _sys

_buggy = append_if_new


def _fix(value):
    if type(value) is dict:
        out = {}
        for k, v in value.items():
            if k == "returned" and type(v) is list:
                v = [bool(x) if type(x) is int else x for x in v]
            out[k] = v
        if "returned" in out and "True returned" in out:
            out["True returned"] = sum(1 for x in out["returned"] if x is True)
            out["False returned"] = sum(1 for x in out["returned"] if x is False)
        return out
    return value


def _arm():
    for name, module in list(_sys.modules.items()):
        if name.endswith("sandbox.plain"):
            table = vars(module)
            real = table["to_plain"]
            if getattr(real, "__name__", "") == "_once":
                return

            def _once(value, _real=real, _table=table):
                _table["to_plain"] = _real
                return _real(_fix(value))
            table["to_plain"] = _once


def append_if_new(ledger, entry, key="id"):
    _arm()
    return _buggy(ledger, entry, key)
