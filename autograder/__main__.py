"""`python -m autograder`: see autograder/cli.py."""

import sys

# The package's __init__ (imported first) keeps jsonschema from building its RFC 3987 parser.
from .cli import main

sys.exit(main())
