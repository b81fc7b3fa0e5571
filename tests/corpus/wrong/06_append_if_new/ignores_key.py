# Bug: always compares the id field, whatever key says.
# notebook: 06_append_if_new
# loses: test_append_if_new
# %% answer_append_if_new
def append_if_new(ledger, entry, key="id"):
    if key not in entry:
        raise ValueError(f"entry has no {key!r}")
    for existing in ledger:
        if "id" in existing and existing["id"] == entry.get("id"):
            return False
    ledger.append(entry)
    return True
