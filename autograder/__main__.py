"""`python -m autograder`: see autograder/cli.py."""

import gc
import sys

from . import CLI_SKIPS

# The package's __init__ (imported first) keeps jsonschema from building its RFC 3987 parser.
# jsonschema (through nbformat) also loads a checker for each other string format whose package
# is installed (Jupyter installs them): a tenth of the time the grader takes to start. Notebook
# schemas use no string formats, so the command line goes without the checkers that are leaf
# packages nothing else here imports (jsonschema skips a format whose import fails). Only here,
# never where the package is imported (a Jupyter server loading nbgrader_config.py may want
# them); idna and jsonpointer stay, since nbgrader and Jupyter import them
# (tests/test_units.py imports every module of the package and nbgrader without them).
for _checker in CLI_SKIPS:
    sys.modules.setdefault(_checker, None)  # type: ignore[arg-type]

from .cli import main  # noqa: E402

# What the imports made lives as long as the process: the collector need not go through it
# again at each collection while a batch is graded (about 3% of a small batch's time).
gc.freeze()
# Each notebook's results arrive as up to a few hundred KB of JSON, parsed into objects that
# live until the notebook is scored, and the expected values read at the start live as long
# as the batch: at the default threshold (a collection per 700 new objects) the collector went
# through them in hundreds of collections, 6% of the grader's CPU on a small class. Collections
# per 10,000 new objects hold a few MB more at most and cost a third of that.
gc.set_threshold(10_000)


def _leave(code: int | None) -> None:
    """End the process with `code` once everything is written: the exit handlers run (spare
    control groups, the private copy of the sandbox package, logging), then the process ends
    without the interpreter's teardown of every object the command made, which takes a small
    batch's last 25 ms with every core idle. With a thread still running, or output that
    cannot be flushed, Python's usual exit decides."""
    import atexit
    import os
    import threading

    if threading.active_count() > 1:
        sys.exit(code)
    atexit._run_exitfuncs()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        sys.exit(code)
    os._exit(code or 0)


_leave(main())
