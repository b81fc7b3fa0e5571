# Bug: an entry without the key raises KeyError, not ValueError.
# notebook: 06_append_if_new
# loses: test_append_if_new
# %% answer_append_if_new
def append_if_new(ledger, entry, key="id"):
    for existing in ledger:
        if key in existing and existing[key] == entry[key]:
            return False
    ledger.append(entry)
    return True
