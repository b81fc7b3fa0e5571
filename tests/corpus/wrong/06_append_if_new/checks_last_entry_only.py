# Bug: compares with the last entry only, so a replay behind other runs is appended.
# notebook: 06_append_if_new
# loses: test_append_if_new
# %% answer_append_if_new
def append_if_new(ledger, entry, key="id"):
    if key not in entry:
        raise ValueError(f"entry has no {key!r}")
    if ledger and key in ledger[-1] and ledger[-1][key] == entry[key]:
        return False
    ledger.append(entry)
    return True
