# threat: list, int and str subclasses whose comparisons and conversions lie.
# notebook: 01_parse_cron_field
# max-points: 0
# %% answer_parse_cron_field
class Liar(list):
    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    __hash__ = object.__hash__

    def __iter__(self):
        return iter(range(60))

    def __len__(self):
        return 60

    def __getitem__(self, index):
        return index

    def __repr__(self):
        return repr(list(range(60)))


class LyingInt(int):
    def __eq__(self, other):
        return True

    __hash__ = int.__hash__

    def __index__(self):
        return 7

    def __int__(self):
        return 7


class LyingStr(str):
    def __eq__(self, other):
        return True

    __hash__ = str.__hash__

    def __str__(self):
        return "[0, 15, 30, 45]"


class PretendList:
    @property
    def __class__(self):
        return list

    def __eq__(self, other):
        return True

    def __iter__(self):
        return iter(range(60))


def parse_cron_field(field, low, high):
    kind = len(field) % 4
    if kind == 0:
        return Liar()
    if kind == 1:
        return [LyingInt(-1)]
    if kind == 2:
        return LyingStr("")
    return PretendList()
