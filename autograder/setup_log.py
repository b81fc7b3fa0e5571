"""What the sandbox could and could not set up, for `--verbose` (nothing is shown without it).

Facts that are the same for every notebook (bubblewrap's options, the control groups, the
system-call filter) are said once per process, however many notebooks are graded.
"""

from __future__ import annotations

import logging
import threading

_said: set[str] = set()
_said_lock = threading.Lock()


def say_once(logger: logging.Logger, level: int, message: str) -> None:
    """Log `message` at `level` on `logger` the first time this process says it."""
    with _said_lock:
        if message in _said:
            return
        _said.add(message)
    logger.log(level, "%s", message)
