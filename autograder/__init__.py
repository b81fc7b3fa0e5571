"""The course's grading package: rubric, hidden suites, sandboxed runner and command line."""

import logging
import sys

# jsonschema (through nbformat) loads rfc3987_syntax when it is installed, to check the "iri"
# string format, and building that module's grammar costs seconds at every start of the
# grader. Notebook schemas use no such format, so the grader goes without that checker:
# jsonschema skips it when the import fails.
# (None in sys.modules is the import system's documented "do not import" marker, which the
# type stubs do not model.)
sys.modules.setdefault("rfc3987_syntax", None)  # type: ignore[arg-type]

# More string-format checkers, leaf packages that nothing else in the command line imports:
# `python -m autograder` goes without them (see __main__.py), a tenth of its start.
CLI_SKIPS = ("rfc3987", "rfc3986_validator", "rfc3339_validator", "isoduration", "fqdn",
             "webcolors", "uri_template")

# Log lines (what the sandbox could set up) are shown only when asked (`--verbose`), never
# through logging's last-resort handler.
logging.getLogger(__name__).addHandler(logging.NullHandler())
