# threat: append_if_new that appends a copy of the entry (so later changes to the caller's entry
# are not seen), and then finds the probe's list of the entries it passed (walking up the
# frames; gc.get_referrers finds it too) and swaps the copy in, so that the ledger's objects
# look like the very ones passed in. The call stack is out of reach while grading: its
# sys._getframe raises ValueError, so every call fails.
# notebook: 06_append_if_new
# max-points: 0
# %% answer_append_if_new
import sys


def append_if_new(ledger, entry, key="id"):
    if key not in entry:
        raise ValueError(f"entry has no {key!r}")
    for existing in ledger:
        if key in existing and existing[key] == entry[key]:
            return False
    copy_ = dict(entry)
    ledger.append(copy_)
    frame = sys._getframe(1)
    while frame is not None:  # the probe's `passed` list holds the entries by identity
        passed = frame.f_locals.get("passed")
        if type(passed) is list:
            for index, item in enumerate(passed):
                if item is entry:
                    passed[index] = copy_
            break
        frame = frame.f_back
    return True
