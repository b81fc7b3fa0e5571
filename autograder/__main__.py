"""`python -m autograder`: see autograder/cli.py."""

import sys

# The package's __init__ (imported first) keeps jsonschema from building its RFC 3987 parser.
# jsonschema (through nbformat) also loads a checker for every other string format whose package
# is installed (Jupyter installs most of them), a sixth of the time the grader takes to start.
# Notebook schemas use no string formats, and nothing else in this process needs these
# packages, so the command line goes without them: jsonschema skips a format whose import fails.
# Only here, never in a process that imports the package (a Jupyter server loading
# nbgrader_config.py may need them).
for _checker in ("rfc3987", "rfc3986_validator", "rfc3339_validator", "isoduration", "fqdn",
                 "idna", "webcolors", "jsonpointer", "uri_template"):
    sys.modules.setdefault(_checker, None)  # type: ignore[arg-type]

from .cli import main  # noqa: E402

sys.exit(main())
