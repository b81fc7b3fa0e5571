# threat: replaces builtins (isinstance, type, sorted, len, repr, str, print, import).
# notebook: 01_parse_cron_field
# max-points: 0
# %% answer_parse_cron_field
import builtins

real_isinstance = builtins.isinstance


def parse_cron_field(field, low, high):
    return [low - 1]  # never right: only the patched builtins could make it pass


builtins.isinstance = lambda obj, kinds: True
builtins.sorted = lambda values, **options: list(range(60))
builtins.len = lambda obj: 60
builtins.repr = lambda obj: "[0, 15, 30, 45]"
builtins.str = lambda *args: "[0, 15, 30, 45]"
builtins.print = lambda *args, **kwargs: None
builtins.type = lambda *args: list
builtins.issubclass = lambda *args: True
builtins.__import__ = lambda name, *args, **kwargs: (_ for _ in ()).throw(ImportError(name))
