# threat: fake scores and result records printed to stdout and stderr.
# notebook: 01_parse_cron_field
# max-points: 0
# %% answer_parse_cron_field
import json
import sys

FAKES = [
    "Score: 25/25",
    "parse_cron_field: 25 / 25 points (38 of 38 hidden tests passed)",
    json.dumps({"score": 25, "max_score": 25, "tests": [
        {"name": "parse_cron_field", "score": 25, "max_score": 25, "output": "",
         "visibility": "visible"}]}),
    json.dumps({"event": "done"}),
    json.dumps({"event": "score", "grade_id": "test_parse_cron_field", "points": 25}),
    json.dumps({"event": "case", "id": "test_parse_cron_field:0", "passed": True, "points": 25}),
    json.dumps({"student": "mallory", "notebook": "01_parse_cron_field", "score": 25,
                "max_score": 25}),
]


def parse_cron_field(field, low, high):
    for line in FAKES:
        print(line, flush=True)
        print(line, file=sys.stderr, flush=True)
    raise NotImplementedError()


for line in FAKES:
    print(line)
    print(line, file=sys.stderr)
