"""`python -m autograder`: see autograder/cli.py."""

import sys

from .cli import main

sys.exit(main())
