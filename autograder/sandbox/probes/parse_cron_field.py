"""Probes for parse_cron_field (notebook 01).

`parse_cron_field.rejects` asks about a bad field next to a valid one on the same range, so a
function that always raises ValueError (or always returns the same list) earns nothing on the
rejection cases: the valid field must still get its values, the bad one must raise ValueError.
"""

from __future__ import annotations

from typing import Any

from . import lookup, probe


def _outcome(parse_cron_field: Any, field: str, low: int, high: int) -> tuple:
    """("returned", values) or ("raised", class name); ValueError subclasses count as
    ValueError. Any other exception is an observation too (a wrong one)."""
    try:
        return ("returned", parse_cron_field(field, low, high))
    except ValueError:
        return ("raised", "ValueError")
    except Exception as error:
        return ("raised", type(error).__name__)


@probe("parse_cron_field.rejects")
def rejects(namespace: dict, bad: str, valid: str, low: int, high: int,
            mentions: tuple[str, ...] = ()) -> dict[str, Any]:
    parse_cron_field = lookup(namespace, "parse_cron_field")
    seen = {
        "valid field": _outcome(parse_cron_field, valid, low, high),
        "bad field": _outcome(parse_cron_field, bad, low, high),
    }
    for needle in mentions:  # the message must name the bad part
        try:
            parse_cron_field(bad, low, high)
        except ValueError as error:
            named = needle.lower() in str(error).lower()
        except Exception:
            named = False
        else:
            named = False
        seen[f"the error message names {needle!r}"] = named
    return seen
