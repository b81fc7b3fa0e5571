"""JSON as `json.dumps` and `json.loads` write and read it, from their C parts alone.

Every sandbox starts a fresh interpreter, and `import json` costs it about a fifth of its own
start: the `json` package imports `re`, and `re` imports `enum`, `functools` and
`collections`, and the guard's snapshot must then cover all of them. The work itself is done
by the C module `_json` that `json` uses; this module calls it directly, with the settings of
`json.dumps()` and `json.loads()` (compact text is not needed: the output is the same as
theirs). Where `_json` is missing (another Python implementation), it is `json` itself.
"""

from __future__ import annotations

try:
    import _json
except ImportError:  # pragma: no cover (CPython always has _json)
    _json = None  # type: ignore[assignment]

TYPE_CHECKING = False  # no import of typing in the sandbox at run time

if TYPE_CHECKING:
    from typing import Any

_WHITESPACE = " \t\n\r"


def _unserialisable(value: object) -> object:
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def dumps(value: object, allow_nan: bool = True) -> str:
    """`json.dumps(value, allow_nan=allow_nan)`: TypeError for what JSON cannot hold, ValueError
    for a circular structure (and, with allow_nan=False, for NaN and the infinities)."""
    if _json is None:  # pragma: no cover
        import json

        return json.dumps(value, allow_nan=allow_nan)
    encode = _json.make_encoder({}, _unserialisable, _json.encode_basestring_ascii, None, ": ",
                                ", ", False, False, allow_nan)
    return "".join(encode(value, 0))


class _Settings:
    """What the C scanner reads from a json.JSONDecoder: its default settings."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = {"-Infinity": float("-inf"), "Infinity": float("inf"),
                      "NaN": float("nan")}.__getitem__


_scan = _json.make_scanner(_Settings()) if _json is not None else None  # type: ignore[arg-type]


def loads(text: str | bytes) -> Any:
    """`json.loads(text)` for UTF-8 text: ValueError (or RecursionError) when it is not one
    JSON document."""
    if _scan is None:  # pragma: no cover
        import json

        return json.loads(text)
    if isinstance(text, (bytes, bytearray)):
        text = bytes(text).decode("utf-8")  # UnicodeDecodeError is a ValueError
    start = len(text) - len(text.lstrip(_WHITESPACE))
    try:
        value, end = _scan(text, start)
    except StopIteration as stop:
        raise ValueError(f"no JSON value at character {stop.value}") from None
    except SystemError:
        # The C scanner reports a malformed object or array through json.decoder's error
        # class, and without json.decoder imported (as in a sandbox) it reports nothing.
        raise ValueError("malformed JSON") from None
    if text[end:].strip(_WHITESPACE):
        raise ValueError(f"more than one JSON value (extra data at character {end})")
    return value
