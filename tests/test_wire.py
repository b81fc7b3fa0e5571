"""The sandbox's JSON (autograder/sandbox/wire.py) writes and reads what `json` does, and a
sandbox starts without importing `json`, `re`, `enum`, `functools` or `collections`."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from autograder.sandbox import wire

pytestmark = pytest.mark.fast
PACKAGE = Path(__file__).resolve().parent.parent / "autograder"

VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.tuples(inner, inner)
    | st.dictionaries(st.text(max_size=4) | st.integers() | st.booleans() | st.none(), inner,
                      max_size=4),
    max_leaves=20)


def outcome(function, *args, **kwargs) -> tuple:
    try:
        value = function(*args, **kwargs)
    except (TypeError, ValueError, RecursionError) as error:
        return ("raised", type(error).__name__ if not isinstance(error, ValueError)
                else "ValueError")
    # NaN is not equal to itself: compare what was read by its JSON text
    return ("value", json.dumps(value) if not isinstance(value, str) else value)


@settings(max_examples=500, deadline=None)
@given(VALUES, st.booleans())
def test_dumps_writes_what_json_dumps_writes(value, allow_nan):
    assert outcome(wire.dumps, value, allow_nan=allow_nan) == \
        outcome(json.dumps, value, allow_nan=allow_nan)


@pytest.mark.parametrize("value", [object(), {1j: 1}, [b"bytes"], {(1, 2): 3}, {"a": {1, 2}}])
def test_dumps_refuses_what_json_refuses(value):
    assert outcome(wire.dumps, value) == outcome(json.dumps, value) == ("raised", "TypeError")


def test_dumps_refuses_a_circular_structure_as_json_does():
    circular: list = []
    circular.append(circular)
    assert outcome(wire.dumps, circular) == outcome(json.dumps, circular) == \
        ("raised", "ValueError")
    assert wire.dumps(float("nan")) == "NaN"
    with pytest.raises(ValueError):
        wire.dumps([math.inf], allow_nan=False)


@settings(max_examples=500, deadline=None)
@given(VALUES, st.sampled_from(["", " ", "\n", " \t\r\n "]))
def test_loads_reads_what_json_writes(value, space):
    text = space + json.dumps(value) + space
    assert outcome(wire.loads, text) == outcome(json.loads, text)
    assert outcome(wire.loads, text.encode()) == outcome(json.loads, text.encode())


GARBAGE = st.text(alphabet='{}[]",:0123456789.eE-+ \ntruefalsnNaIiy\\u\x00é', max_size=30)


@settings(max_examples=1000, deadline=None)
@given(GARBAGE)
def test_loads_refuses_what_json_refuses(text):
    assert outcome(wire.loads, text) == outcome(json.loads, text)


@pytest.mark.parametrize("data", [b"", b"\xff\xfe", b'{"a": 1} {"b": 2}', b"[" * 100_000,
                                  b'"\xed\xa0\x80"', b"\xef\xbb\xbf{}", b"nul", b"1 2"])
def test_loads_refuses_a_hostile_record(data):
    with pytest.raises((ValueError, RecursionError)):
        wire.loads(data)


def test_a_sandbox_starts_without_the_heavy_modules():
    """What the worker and its probe registry import, in a fresh interpreter started as the
    sandbox starts it (-S: no site)."""
    # datetime defines its classes in Python before taking _datetime's (plain.py uses those);
    # importlib brings warnings (probes.load uses the import statement's own function).
    heavy = ("json", "re", "enum", "functools", "collections", "signal", "typing", "datetime",
             "importlib")
    found = subprocess.run(
        [sys.executable, "-S", "-c",
         "import sys; sys.path[0] = sys.argv[1]; import sandbox.worker, sandbox.probes; "
         "print(' '.join(sorted(name for name in sys.modules if name in sys.argv[2:])))",
         str(PACKAGE), *heavy],
        capture_output=True, text=True, check=True).stdout.split()
    assert found == []


def test_the_worker_finds_prctl_without_the_ctypes_package_and_forgets_ctypes():
    """The worker's prctl works (PR_GET_DUMPABLE answers 1 in a plain process), the ctypes
    package is never imported for it (only its C module, _ctypes), and _ctypes is out of
    sys.modules again, so that notebook code's import of it meets the guard."""
    found = subprocess.run(
        [sys.executable, "-S", "-c",
         "import sys; sys.path[0] = sys.argv[1]; import sandbox.worker as worker\n"
         "imported = []\n"
         "sys.addaudithook(lambda event, args: event == 'import' and imported.append(args[0]))\n"
         "prctl = worker._libc_prctl()\n"
         "print(prctl(3, 0, 0, 0, 0), sorted({name for name in imported if 'ctypes' in name}),\n"
         "      sorted(name for name in sys.modules if 'ctypes' in name))",
         str(PACKAGE)],
        capture_output=True, text=True, check=True).stdout.split(maxsplit=1)
    assert found == ["1", "['_ctypes'] []\n"]


def test_loads_refuses_malformed_objects_where_json_is_not_imported():
    """In a sandbox, json (and its decoder, through which the C scanner reports a malformed
    object or array) is never imported: a malformed record is still a ValueError, never the
    scanner's SystemError."""
    documents = ["{bad", "{", '{"a" 1}', "{1: 2}", '["a" "b"]', '{"a": 1,}', "[1,]", '"\\x"']
    found = subprocess.run(
        [sys.executable, "-S", "-c",
         "import sys; sys.path[0] = sys.argv[1]; import sandbox.worker; "
         "from sandbox import wire\n"
         "for text in sys.argv[2:]:\n"
         "    try:\n        wire.loads(text)\n    except ValueError:\n        print('refused')\n"
         "print('json' in sys.modules)",
         str(PACKAGE), *documents],
        capture_output=True, text=True)
    assert found.stdout.split() == ["refused"] * len(documents) + ["False"], found.stderr
