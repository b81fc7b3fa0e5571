"""nbgrader settings for `make lab` (read through JUPYTER_CONFIG_PATH): what Validate checks.

The student copies' grade cells hold no visible test (their hidden part is stripped), so nbgrader's
default Validate, which looks only at grade cells, answered "Success! Your notebook passes all the
tests." for a notebook with no answer at all. Checking every cell instead reports each cell that
ends in an error: an unfinished answer (NotImplementedError) and a self-check that disagrees.
"""

c = get_config()  # noqa: F821 (provided by nbgrader when it loads this file)

c.Validator.validate_all = True
