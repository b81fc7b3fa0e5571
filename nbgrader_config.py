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
