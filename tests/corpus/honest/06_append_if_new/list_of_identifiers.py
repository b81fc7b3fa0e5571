# Honest: the identifiers already in the ledger collected in a list (which, unlike a set,
# needs no hashing), then one `in` test.
# notebook: 06_append_if_new
# %% answer_append_if_new
def append_if_new(ledger: list[dict], entry: dict, key: str = "id") -> bool:
    """Append `entry` to `ledger` in place unless an entry with the same entry[key] is there."""
    if key not in entry:
        raise ValueError(f"cannot record {entry!r}: it has no {key}")
    known = [existing[key] for existing in ledger if key in existing]
    if entry[key] in known:
        return False
    ledger.append(entry)
    return True
