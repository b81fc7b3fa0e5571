"""Probes for cron_matches (notebook 02).

`cron_matches.at` asks one expression about several moments, matching and not, and returns
the answers in order, so a function that always answers the same thing earns nothing.
"""

from __future__ import annotations

from datetime import datetime

from . import lookup, probe


@probe("cron_matches.at")
def at(namespace: dict, expression: str, moments: list[datetime]) -> list:
    cron_matches = lookup(namespace, "cron_matches")
    return [cron_matches(expression, moment) for moment in moments]

