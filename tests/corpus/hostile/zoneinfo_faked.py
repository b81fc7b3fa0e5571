# threat: the answer that searches in UTC plus a cell that puts a module of its own into
# sys.modules as "zoneinfo", so that the hidden tests' time zones would be built from it: zones
# with offset 0 that still report their real key, which hides the bug. The real module is loaded
# before the guard's snapshot and put back for the tests.
# notebook: 03_next_run
# answers-from: wrong/03_next_run/searches_in_utc
# max-points: as its answers alone
# ruff: noqa: F821, E501, B905, E402, F811 (names come from the setup cells; cells import anew)
# %% new:answer_next_run
import sys as _sys
import types as _types
from datetime import timedelta as _td
from datetime import tzinfo as _tzinfo


class _FlatZone(_tzinfo):
    def __init__(self, key="UTC"):
        self.key = key

    def __deepcopy__(self, memo):
        return self

    def utcoffset(self, dt):
        return _td(0)

    def dst(self, dt):
        return _td(0)

    def tzname(self, dt):
        return self.key


_fake = _types.ModuleType("zoneinfo")
_fake.ZoneInfo = _FlatZone
_fake.ZoneInfoNotFoundError = KeyError
_sys.modules["zoneinfo"] = _fake
