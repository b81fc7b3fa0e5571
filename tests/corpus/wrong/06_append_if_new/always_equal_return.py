# Bug: returns objects that claim to equal anything (and are truthy or falsy as they should) instead of a bool.
# notebook: 06_append_if_new
# loses: test_append_if_new
# %% answer_append_if_new
class Answer:
    def __init__(self, value):
        self.value = value

    def __eq__(self, other):
        return True

    def __hash__(self):
        return hash(self.value)

    def __bool__(self):
        return self.value

    def __repr__(self):
        return repr(self.value)


def append_if_new(ledger, entry, key="id"):
    if key not in entry:
        raise ValueError(f"entry has no {key!r}")
    for existing in ledger:
        if key in existing and existing[key] == entry[key]:
            return Answer(False)
    ledger.append(entry)
    return Answer(True)
