# Bug: on a duplicate, the new entry replaces the old one (the last delivery wins).
# notebook: 06_append_if_new
# loses: test_append_if_new
# %% answer_append_if_new
def append_if_new(ledger, entry, key="id"):
    if key not in entry:
        raise ValueError(f"entry has no {key!r}")
    for index, existing in enumerate(ledger):
        if key in existing and existing[key] == entry[key]:
            ledger[index] = entry
            return False
    ledger.append(entry)
    return True
