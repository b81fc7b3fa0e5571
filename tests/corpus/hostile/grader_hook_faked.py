# threat: puts a fake autograder.in_kernel in sys.modules, whose grade_cell claims every point.
# notebook: 01_parse_cron_field
# max-points: 0
# %% answer_parse_cron_field
import sys
import types


def parse_cron_field(field, low, high):
    raise NotImplementedError()


def _full_marks(grade_id, namespace):
    print("every hidden test passed")
    return 25


for _name in ("autograder", "autograder.in_kernel", "autograder.suite", "autograder.grading"):
    _fake = types.ModuleType(_name)
    _fake.grade_cell = _full_marks
    _fake.judge = lambda *args: (True, "")
    _fake.item_points = lambda verdicts: 25
    sys.modules[_name] = _fake
