# Bug: existing.get(key) == identifier matches an entry without the field when the identifier is None.
# notebook: 06_append_if_new
# loses: test_append_if_new
# %% answer_append_if_new
def append_if_new(ledger, entry, key="id"):
    if key not in entry:
        raise ValueError(f"entry has no {key!r}")
    for existing in ledger:
        if existing.get(key) == entry[key]:
            return False
    ledger.append(entry)
    return True
