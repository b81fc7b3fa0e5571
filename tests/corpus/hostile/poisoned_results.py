# threat: malformed and hostile records on every descriptor, to crash the scorer.
# notebook: 01_parse_cron_field
# max-points: 0
# %% answer_parse_cron_field
import json
import os

ids = [f"test_parse_cron_field:{index}" for index in range(60)]
strange_outcomes = [
    {"timeout": "soon"},
    {"timeout": None},
    {"value": {"__datetime__": "not a date", "tz": "Mars/Olympus"}},
    {"value": {"__datetime__": "2024-01-01T00:00:00", "tz": {"zone": "../../../etc/passwd"}}},
    {"value": {"__timedelta__": "long"}},
    {"value": {"__bytes__": "zz"}},
    {"value": {"__set__": 5}},
    {"value": {"__dict__": [[1]]}},
    {"value": {"__tuple__": None}},
    {"value": {"__float__": "nan"}},
    {"raised": ["ValueError"], "mro": "ValueError", "message": {"a": 1}},
    {"raised": "ValueError", "mro": [["ValueError"]], "message": None},
    {"missing": {"x": 1}},
    [],
    "passed",
    None,
]
lines = []
for index, case_id in enumerate(ids):
    outcome = strange_outcomes[index % len(strange_outcomes)]
    lines.append({"event": "case", "id": case_id, "outcome": outcome})
lines += [{"event": "case", "id": ["test_parse_cron_field", 0], "outcome": {"value": 1}},
          {"event": "case", "id": {"a": 1}, "outcome": {}},
          {"event": "case"},
          {"event": "cell", "label": {"x": 1}, "error": "not a dict"},
          {"event": "cell", "label": "your cell 1", "error": {"timeout": "x", "raised": 5}},
          {"event": ["done"]},
          {"event": "done", "score": float("inf")}]
payload = b"\n" + b"\n".join(json.dumps(line, allow_nan=True).encode() for line in lines) + b"\n"
payload += b"[" * 100000 + b"]" * 100000 + b"\n"
payload += b'{"event": "case", "id": "' + b"x" * (2 * 2**20) + b'"}\n'
payload += b"\xff\xfe\x00 not utf-8 \x80\x81\n"
payload += b'{"event": "case", "id": "test_parse_cron_field:1", "outcome": {"value": 1e999}}\n'
payload += b'{"event": "case", "id": "test_parse_cron_field:2", "outcome": {"value": NaN}}\n'


def spray():
    for fd in range(1, 21):
        try:
            os.write(fd, payload)
        except OSError:
            pass


spray()


def parse_cron_field(field, low, high):
    if field == "*":
        spray()
    raise NotImplementedError()
