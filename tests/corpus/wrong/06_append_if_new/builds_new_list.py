# Bug: builds a new list instead of appending in place, so the caller's ledger never grows.
# notebook: 06_append_if_new
# loses: test_append_if_new
# %% answer_append_if_new
def append_if_new(ledger, entry, key="id"):
    if key not in entry:
        raise ValueError(f"entry has no {key!r}")
    for existing in ledger:
        if key in existing and existing[key] == entry[key]:
            return False
    ledger = ledger + [entry]
    return True
