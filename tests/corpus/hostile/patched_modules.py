# threat: replaces json, copy, signal, the C modules behind json and signal (_json, _signal,
# which the sandbox uses) and the grader's sandbox modules.
# notebook: 01_parse_cron_field
# max-points: 0
# %% answer_parse_cron_field
import _json
import _signal
import copy
import json
import signal
import sys
import types


def parse_cron_field(field, low, high):
    raise NotImplementedError()


fake_json = types.ModuleType("json")
fake_json.dumps = lambda *args, **kwargs: '{"event": "case", "outcome": {"passed": true}}'
fake_json.loads = lambda *args, **kwargs: {"score": 25}
sys.modules["json"] = fake_json
json.dumps = fake_json.dumps
copy.deepcopy = lambda value, memo=None: value
signal.signal = lambda *args: None
signal.setitimer = lambda *args: (0.0, 0.0)
_signal.signal = lambda *args: None
_signal.setitimer = lambda *args: (0.0, 0.0)
_json.make_encoder = lambda *args: lambda value, level: ['{"case": "x", "outcome": {"value": 1}}']
_json.make_scanner = lambda context: lambda text, index: ({"score": 25}, len(text))

for name, module in list(sys.modules.items()):
    if "sandbox" in name or "autograder" in name or "harness" in name or "plain" in name:
        for attribute in ("same", "judge", "score"):
            setattr(module, attribute, lambda *args, **kwargs: True)
        if hasattr(module, "run_case"):
            module.run_case = lambda namespace, case: {"value": list(range(60)), "passed": True}
        if hasattr(module, "describe_error"):
            module.describe_error = lambda error: {"passed": True, "score": 25}
        if hasattr(module, "dumps"):
            module.dumps = lambda *args, **kwargs: '{"event": "case", "outcome": {"passed": true}}'
        if hasattr(module, "to_plain"):
            module.to_plain = lambda value: {"passed": True}
