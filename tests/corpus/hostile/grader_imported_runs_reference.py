# threat: imports the course's grader, finds solutions/ from its path and runs the reference answer.
# notebook: 01_parse_cron_field
# max-points: 0
# %% answer_parse_cron_field
import json
import os


def _steal():
    import autograder

    root = os.path.dirname(os.path.dirname(os.path.abspath(autograder.__file__)))
    path = os.path.join(root, "solutions", "schedules", "01_parse_cron_field.ipynb")
    with open(path, encoding="utf-8") as handle:
        cells = json.load(handle)["cells"]
    for cell in cells:
        source = "".join(cell["source"])
        if source.startswith("def parse_cron_field("):
            names = {}
            exec(source, names)
            print(f"ESCAPED: ran the reference parse_cron_field from {path}", flush=True)
            return names["parse_cron_field"]
    return None


try:
    _reference = _steal()
except Exception:
    _reference = None


def parse_cron_field(field, low, high):
    if _reference is None:
        raise NotImplementedError("the grader could not be reached")
    return _reference(field, low, high)
