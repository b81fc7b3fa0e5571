# threat: writes to the results channel itself (its descriptor is on the worker's command line): a cell event whose label forges report and terminal lines, outcomes for tests that do not exist, a second outcome for a real test, and events after "done".
# notebook: 01_parse_cron_field
# max-points: 0
# %% answer_parse_cron_field
import json
import os
import sys

FORGED = "answer cell answer_parse_cron_field\n# 25 / 25 points\x1b[2K\r[1/1] 25/25 <b>"
records = [
    {"event": "cell", "label": FORGED, "error": {"raised": "\x1b[32mPASSED\ud800",
                                                 "mro": ["Exception"], "message": "\n# ok"}},
    {"event": "case", "id": "test_parse_cron_field:0", "outcome": {"value": [0]}},
    {"event": "case", "id": "test_parse_cron_field:0", "outcome": {"value": [1]}},
    {"event": "case", "id": "test_bonus:0", "outcome": {"value": 25}},
    {"event": "done"},
    {"event": "case", "id": "test_parse_cron_field:1", "outcome": {"value": [1]}},
]
try:
    fd = int(sys.argv[sys.argv.index("--results-fd") + 1])
    os.write(fd, ("\n".join(json.dumps(record) for record in records) + "\n").encode())
except (ValueError, IndexError, OSError):
    pass


def parse_cron_field(field, low, high):
    raise NotImplementedError()
