# Bug: treats the identifiers None, 0 and the empty string as missing.
# notebook: 06_append_if_new
# loses: test_append_if_new
# %% answer_append_if_new
def append_if_new(ledger, entry, key="id"):
    if not entry.get(key):
        raise ValueError(f"entry has no {key!r}")
    for existing in ledger:
        if key in existing and existing[key] == entry[key]:
            return False
    ledger.append(entry)
    return True
