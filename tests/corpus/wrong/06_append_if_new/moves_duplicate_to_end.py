# Bug: on a duplicate, the old entry is removed and the new one appended at the end.
# notebook: 06_append_if_new
# loses: test_append_if_new
# %% answer_append_if_new
def append_if_new(ledger, entry, key="id"):
    if key not in entry:
        raise ValueError(f"entry has no {key!r}")
    for existing in ledger:
        if key in existing and existing[key] == entry[key]:
            ledger.remove(existing)
            ledger.append(entry)
            return False
    ledger.append(entry)
    return True
