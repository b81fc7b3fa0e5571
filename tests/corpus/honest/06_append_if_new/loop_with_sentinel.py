# Honest: a for loop with an early return, reading each existing entry with dict.get and a
# private sentinel object, so that a missing field never equals any identifier (None
# included); the loop runs from the newest entry back, where a retry usually is.
# notebook: 06_append_if_new
# %% answer_append_if_new
_MISSING = object()


def append_if_new(ledger, entry, key="id"):
    """Append `entry` to `ledger` in place unless an entry with the same entry[key] is there."""
    try:
        wanted = entry[key]
    except KeyError:
        raise ValueError(f"entry has no field named {key}") from None
    for existing in reversed(ledger):
        found = existing.get(key, _MISSING)
        if found is not _MISSING and found == wanted:
            return False
    ledger.append(entry)
    return True
