# Honest: the identifiers already in the ledger gathered in a set, then one membership test.
# notebook: 06_append_if_new
# %% answer_append_if_new
def append_if_new(ledger: list[dict], entry: dict, key: str = "id") -> bool:
    if key not in entry:
        raise ValueError(f"missing key {key!r}")
    seen = {existing[key] for existing in ledger if key in existing}
    if entry[key] in seen:
        return False
    ledger.append(entry)
    return True
