# threat: fake result records written to every file descriptor 1-20.
# notebook: 01_parse_cron_field
# max-points: 0
# %% answer_parse_cron_field
import json
import os

ids = [f"test_parse_cron_field:{index}" for index in range(60)]
records = [{"event": "case", "id": case_id, "passed": True, "points": 25,
            "outcome": {"passed": True, "score": 25}} for case_id in ids]
records += [{"event": "done", "score": 25}, {"score": 25, "max_score": 25, "tests": []},
            {"event": "item", "grade_id": "test_parse_cron_field", "points": 25, "max_points": 25}]
PAYLOAD = ("\n" + "\n".join(json.dumps(record) for record in records) + "\n").encode()


def spray():
    for fd in range(1, 21):
        try:
            os.write(fd, PAYLOAD)
        except OSError:
            pass


def parse_cron_field(field, low, high):
    spray()
    raise NotImplementedError()


spray()
