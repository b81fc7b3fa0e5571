"""The course's grading package: rubric, hidden suites, sandboxed runner and command line."""
