# Bug: an identifier that is NaN is rejected as if it were missing, but a NaN is an identifier
# like any other: it equals no other NaN, so its entry is new.
# notebook: 06_append_if_new
# loses: test_append_if_new
# %% answer_append_if_new
def append_if_new(ledger, entry, key="id"):
    if key not in entry or entry[key] != entry[key]:  # NaN is the one value unequal to itself
        raise ValueError(f"the entry has no usable {key!r}: {entry!r}")
    for existing in ledger:
        if key in existing and existing[key] == entry[key]:
            return False
    ledger.append(entry)
    return True
