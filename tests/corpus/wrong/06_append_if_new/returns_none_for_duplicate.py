# Bug: a duplicate falls off the end of the function and returns None.
# notebook: 06_append_if_new
# loses: test_append_if_new
# %% answer_append_if_new
def append_if_new(ledger, entry, key="id"):
    if key not in entry:
        raise ValueError(f"entry has no {key!r}")
    if all(not (key in existing and existing[key] == entry[key]) for existing in ledger):
        ledger.append(entry)
        return True
