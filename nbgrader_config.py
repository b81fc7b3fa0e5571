"""nbgrader's course configuration: instructors edit solutions/, students receive notebooks/."""

import os

c = get_config()  # noqa: F821 (provided by nbgrader when it loads this file)

c.CourseDirectory.root = os.path.dirname(os.path.abspath(__file__))
c.CourseDirectory.course_id = "scheduled-pipelines"
# nbgrader's "source" is our solutions/ and its "release" is our notebooks/.
c.CourseDirectory.source_directory = "solutions"
c.CourseDirectory.release_directory = "notebooks"
c.CourseDirectory.submitted_directory = "submitted"
c.CourseDirectory.autograded_directory = "autograded"
c.CourseDirectory.feedback_directory = "feedback"
c.CourseDirectory.db_url = "sqlite:///gradebook.db"

# Students are created on first autograde; the roster can also be imported with `nbgrader db`.
c.Autograde.create_student = True
# A notebook's cells may run for at most this many seconds each under nbgrader.
c.ExecutePreprocessor.timeout = 120

# --- Formgrader from an unactivated venv (issue 15) ---------------------------------------------
# nbgrader runs `alembic` by bare name when it creates gradebook.db. Started as `.venv/bin/jupyter
# lab` without activating the venv, the venv's bin/ is not on PATH and Formgrader fails with
# "FileNotFoundError: 'alembic'". Put the bin/ of the Python running nbgrader first on PATH.
import sys  # noqa: E402 (kept inside this block)

_nbgrader_bin = os.path.dirname(sys.executable)
if os.path.exists(os.path.join(_nbgrader_bin, "alembic")) and _nbgrader_bin not in os.environ.get(
        "PATH", "").split(os.pathsep):
    os.environ["PATH"] = _nbgrader_bin + os.pathsep + os.environ.get("PATH", "")
# --- end of the Formgrader block ------------------------------------------------------------------
