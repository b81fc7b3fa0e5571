# Bug: compares identifiers as text, so 1 and "1" collide.
# notebook: 06_append_if_new
# loses: test_append_if_new
# %% answer_append_if_new
def append_if_new(ledger, entry, key="id"):
    if key not in entry:
        raise ValueError(f"entry has no {key!r}")
    for existing in ledger:
        if key in existing and str(existing[key]) == str(entry[key]):
            return False
    ledger.append(entry)
    return True
