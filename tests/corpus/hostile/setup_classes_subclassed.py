# threat: run_job whose recovery fetches the raw input again (so it reports the feed's newer
# data under the old window), plus cells of its own that subclass the setup cells' QuoteSource
# and Crash under the same names: after a simulated crash the feed ignores changes to its bytes
# and stops counting fetches, so the bug no longer shows (the probes build their world from the
# setup cells' classes).
# notebook: 07_safe_scheduler
# answers-from: wrong/07_safe_scheduler/recovery_refetches
# max-points: as its answers alone
# ruff: noqa: F821, E501, B905, E402, F811 (names come from the setup cells; cells import anew)
# %% new
# TRICK (a cell of the student's own, no graded function touched): the setup cell's QuoteSource
# and Crash live in the same namespace as the answers, and the probes look them up there by name.
# After a simulated crash, a feed ignores any change of its bytes, so the buggy recovery that
# fetches again still gets the first raw input.
_crashed = [False]


class Crash(Crash):
    def __init__(self, *args, **kwargs):
        _crashed[0] = True
        super().__init__(*args, **kwargs)


class QuoteSource(QuoteSource):
    def __init__(self, *args, **kwargs):
        _crashed[0] = False
        super().__init__(*args, **kwargs)

    def __setattr__(self, name, value):
        if name == "raw" and _crashed[0] and self.__dict__.get("_served"):
            return
        object.__setattr__(self, name, value)

    def fetch(self, deadline_seconds):
        again = _crashed[0] and self.__dict__.get("_served")
        raw = super().fetch(deadline_seconds)
        if again:
            self.calls -= 1  # and the second fetch is not counted
        self.__dict__["_served"] = True
        return raw
