# Bug: compares identifiers with `is` instead of ==, so equal strings built separately look different.
# notebook: 06_append_if_new
# loses: test_append_if_new
# %% answer_append_if_new
def append_if_new(ledger, entry, key="id"):
    if key not in entry:
        raise ValueError(f"entry has no {key!r}")
    for existing in ledger:
        if key in existing and existing[key] is entry[key]:
            return False
    ledger.append(entry)
    return True
