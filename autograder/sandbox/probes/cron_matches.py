"""Probes for cron_matches (notebook 02).

Every case asks about moments that match *and* moments that do not, so a function that always
answers the same thing, or always raises, earns nothing:

- `cron_matches.at` asks one expression about several moments and returns the answers in order;
- `cron_matches.rejects` asks for a valid expression's answer and what happens to a bad one at
  the same moment (the bad one must raise ValueError).
"""

from __future__ import annotations

from datetime import datetime

from . import lookup, probe


@probe("cron_matches.at")
def at(namespace: dict, expression: str, moments: list[datetime]) -> list:
    cron_matches = lookup(namespace, "cron_matches")
    return [cron_matches(expression, moment) for moment in moments]


def _outcome(function, expression: str, when: datetime) -> tuple:
    """("returned", value) or ("raised", class name); ValueError subclasses count as ValueError."""
    try:
        value = function(expression, when)
    except ValueError:
        return ("raised", "ValueError")
    except Exception as error:  # any other error is an observation too (a wrong one)
        return ("raised", type(error).__name__)
    return ("returned", value)


@probe("cron_matches.rejects")
def rejects(namespace: dict, bad: str, valid: str, when: datetime) -> dict:
    cron_matches = lookup(namespace, "cron_matches")
    return {
        "valid expression": _outcome(cron_matches, valid, when),
        "bad expression": _outcome(cron_matches, bad, when),
    }
