# Bug: compares whole entries, so a retry with a new attempt number is appended.
# notebook: 06_append_if_new
# loses: test_append_if_new
# %% answer_append_if_new
def append_if_new(ledger, entry, key="id"):
    if key not in entry:
        raise ValueError(f"entry has no {key!r}")
    if entry in ledger:
        return False
    ledger.append(entry)
    return True
