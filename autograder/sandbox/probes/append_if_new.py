"""Probes for append_if_new (notebook 06): what a sequence of calls does to one ledger.

The probes build the ledger themselves, call the notebook's function, and report what they
saw as plain data: every return value exactly as returned (a bool stays a bool), the ledger's
length and contents afterwards, and, by identity (`is`), where each element of the ledger came
from. Key values are rebuilt as fresh objects, so that code comparing keys with `is` instead
of `==` is caught.
"""

from __future__ import annotations

import random

from . import lookup, probe

TYPE_CHECKING = False  # no import of typing in the sandbox at run time
if TYPE_CHECKING:
    from typing import Any

NAME = "append_if_new"


def _fresh(value: Any) -> Any:
    """An object equal to `value` but not the same object, where Python allows it."""
    if type(value) is str and len(value) > 1:
        return "".join([value[:1], value[1:]])
    if type(value) is int and not -5 <= value <= 256:
        return int(str(value))
    if type(value) is tuple:
        return tuple([_fresh(item) for item in value])
    return value


def _rebuild(entry: dict) -> dict:
    return {name: _fresh(value) for name, value in entry.items()}


def _origin(element: Any, originals: tuple, passed: tuple) -> str:
    for index, original in enumerate(originals):
        if element is original:
            return f"ledger[{index}] from before"
    for index, entry in enumerate(passed):
        if element is entry:
            return f"the entry of call {index + 1}"
    return "an object that was not passed in (a copy?)"


def _call(function: Any, ledger: list, entry: dict, key: str | None, how: str) -> Any:
    if how == "default":
        return function(ledger, entry)
    if how == "positional":
        return function(ledger, entry, key)
    return function(ledger, entry, key=key)


OBSERVATIONS = ("returned", "contents", "objects")


@probe("append_if_new.calls")
def calls(namespace: dict, ledger: list, steps: list,
          observe: list | tuple = OBSERVATIONS) -> dict:
    """Run the calls in `steps` on one ledger; report what `observe` names afterwards:
    "returned" (every return value), "contents" (the ledger's length and contents),
    "objects" (where each element of the ledger came from, by identity).

    Each step is {"entry": dict, "key": str, "how": "default" | "positional" | "keyword"},
    or {"again": i, "how": ...} to pass the very entry object of step i (0-based) once more.
    """
    append_if_new = lookup(namespace, NAME)
    ledger = [_rebuild(entry) for entry in ledger]
    # What the objects are compared with is kept in tuples: the code under test can reach a
    # list of this probe's (gc.get_referrers, frames) and change it in place, never a tuple.
    originals = tuple(ledger)
    passed: tuple = ()
    returned = []
    for step in steps:
        entry = passed[step["again"]] if "again" in step else _rebuild(step["entry"])
        passed += (entry,)
        returned.append(_call(append_if_new, ledger, entry, step.get("key"), step["how"]))
    seen: dict = {}
    if "returned" in observe:
        seen["returned"] = returned
    if "contents" in observe:
        seen["ledger length"] = len(ledger)
        seen["ledger contents"] = list(ledger)
    if "objects" in observe:
        seen["ledger objects"] = [_origin(element, originals, passed) for element in ledger]
    return seen


@probe("append_if_new.missing_key")
def missing_key(namespace: dict, ledger: list, good: dict, bad: dict, key: str | None,
                how: str, names_key: bool = False) -> dict:
    """Append `good` (which has the key), then try `bad` (which lacks it).

    Reports only what the second call did: "raised ValueError" for a ValueError or a subclass
    of it, otherwise the class it raised or the value it returned. With `names_key`, also
    whether the ValueError's message contains the key's name (ignoring case). What the first
    call did to the ledger is the other cases' business (the suite marks these cases as
    rejections, so an answer that only raises for a missing key earns nothing for it); an
    exception from it (a stub's NotImplementedError) propagates and fails the case.
    """
    append_if_new = lookup(namespace, NAME)
    ledger = [_rebuild(entry) for entry in ledger]
    _call(append_if_new, ledger, _rebuild(good), key, how)
    named = False
    try:
        value = _call(append_if_new, ledger, _rebuild(bad), key, how)
    except ValueError as error:
        second: Any = "raised ValueError"
        named = str(key or "id").lower() in str(error).lower()
    except Exception as error:  # the observation is which class, not a verdict
        second = f"raised {type(error).__name__}, not ValueError"
    else:
        second = {"returned without raising": value}
    seen: dict[str, Any] = {"call without the key": second}
    if names_key:
        seen["the message names the key"] = named
    return seen


@probe("append_if_new.many")
def many(namespace: dict, size: int, deliveries: int, seed: int) -> dict:
    """A ledger of `size` entries, then `deliveries` seeded calls mixing repeats of old ids,
    repeats of ids delivered earlier in the run, and new ids."""
    append_if_new = lookup(namespace, NAME)
    rng = random.Random(seed)
    ledger = [{"id": f"run-{number:06d}", "qty": number % 97} for number in range(size)]
    originals = tuple(ledger)  # tuples, as in `calls`
    made = []
    for delivery in range(deliveries):
        roll = rng.random()
        if roll < 0.3:
            number = rng.choice([0, size - 1, rng.randrange(size)])
        elif roll < 0.5 and delivery:
            number = size + rng.randrange(delivery)
        else:
            number = size + delivery
        made.append({"id": f"run-{number:06d}", "qty": -delivery, "attempt": delivery})
    passed = tuple(made)
    del made
    returned = [append_if_new(ledger, entry) for entry in passed]
    kept = sum(1 for index, original in enumerate(originals)
               if index < len(ledger) and ledger[index] is original)
    appended = ledger[size:] if kept == size else []
    return {
        "ledger length": len(ledger),
        "True returned": sum(1 for value in returned if value is True),
        "False returned": sum(1 for value in returned if value is False),
        "old entries still in place (same objects)": kept,
        "appended entries that are the objects passed in":
            sum(1 for element in appended if any(element is entry for entry in passed)),
        "returned": returned,
        "ids in the ledger": [element.get("id") if type(element) is dict else element
                              for element in ledger],
        "contents of the old entries": ledger[:size],
    }
