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

# Log lines (what the sandbox could set up) are shown only when asked (`--verbose`), never
# through logging's last-resort handler.
logging.getLogger(__name__).addHandler(logging.NullHandler())
