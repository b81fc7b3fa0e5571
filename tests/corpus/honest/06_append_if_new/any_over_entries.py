# Honest: one any(...) over the ledger, asking `key in existing` before comparing with ==.
# notebook: 06_append_if_new
# %% answer_append_if_new
def append_if_new(ledger: list[dict], entry: dict, key: str = "id") -> bool:
    if key not in entry:
        raise ValueError(f"the entry has no {key!r} field: {entry!r}")
    identifier = entry[key]
    if any(key in existing and existing[key] == identifier for existing in ledger):
        return False
    ledger.append(entry)
    return True
