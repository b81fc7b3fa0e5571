# Bug: looks the identifier up with entry.get(key) and searches the ledger before checking that
# the entry has the key, so an entry without it is taken for a duplicate of an entry whose
# identifier is None (returns False instead of raising ValueError).
# notebook: 06_append_if_new
# loses: test_append_if_new
# %% answer_append_if_new
def append_if_new(ledger, entry, key="id"):
    identifier = entry.get(key)
    for existing in ledger:
        if key in existing and existing[key] == identifier:
            return False
    if key not in entry:
        raise ValueError(f"entry has no {key!r} field")
    ledger.append(entry)
    return True
