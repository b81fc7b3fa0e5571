"""Probes for cron_matches (notebook 02).

`cron_matches.rejects` asks two questions at the same moment: what the function answers for a
valid expression, and what it does with a bad one next to it. A function that raises
ValueError for everything, or answers everything, cannot pass: the valid expression must get
its True or False, and the bad one must raise.
"""

from __future__ import annotations

from datetime import datetime

from . import lookup, probe


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
