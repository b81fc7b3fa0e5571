"""Hidden test suites, one module per graded item (named in autograder/rubric.py)."""
