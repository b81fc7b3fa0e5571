"""`python -m autograder`: see autograder/cli.py."""

import sys

# jsonschema (through nbformat) builds an RFC 3987 parser when it is imported, which takes
# seconds; notebook validation never checks those formats, and every grader start pays it.
sys.modules.setdefault("rfc3987_syntax", None)

from .cli import main  # noqa: E402

sys.exit(main())
