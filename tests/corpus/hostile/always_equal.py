# threat: returned objects claim to equal anything (__eq__, __hash__, __repr__ all lie).
# notebook: 01_parse_cron_field
# max-points: 0
# %% answer_parse_cron_field
class AlwaysEqual:
    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    def __hash__(self):
        return hash(tuple(range(0, 60, 15)))

    def __repr__(self):
        return "[0, 15, 30, 45]"

    def __iter__(self):
        return iter(range(0, 60, 15))

    def __len__(self):
        return 4

    def __reduce__(self):
        return (list, ([0, 15, 30, 45],))


def parse_cron_field(field, low, high):
    return AlwaysEqual()
