"""Probes for notebook 07's run_key: the same logical run gives the same key, any change gives
a new one."""

from __future__ import annotations

import re

from . import lookup, probe

# Compiled when the probes load: `re.fullmatch(text, ...)` would look the pattern up in re's
# cache, a dict notebook code can fill with a pattern of its own.
HEX = re.compile("[0-9a-f]+")


def _key(namespace: dict, parts: dict) -> object:
    return lookup(namespace, "run_key")(parts["job"], parts["window_start"], parts["window_end"],
                                        parts["config"], parts["source"])


def _key_text(key: object) -> dict:
    if type(key) is not str:
        return {"type": type(key).__name__}
    return {"type": "str", "length": len(key), "lowercase hex": HEX.fullmatch(key) is not None}


@probe("run_key.same_run_same_key")
def same_run_same_key(namespace: dict, parts: dict, other: dict) -> dict:
    """`other` describes the same logical run differently (copied config, another zone...)."""
    first, again, second = _key(namespace, parts), _key(namespace, parts), _key(namespace, other)
    return {"key": _key_text(first),
            "called twice gives the same key": type(first) is str and first == again,
            "the other description gives the same key": type(first) is str and first == second}


@probe("run_key.one_change")
def one_change(namespace: dict, parts: dict, field: str, value: object) -> dict:
    changed = dict(parts, **{field: value})
    before, after = _key(namespace, parts), _key(namespace, changed)
    return {"key": _key_text(after), f"changing {field} changes the key":
            type(before) is str and type(after) is str and before != after}

