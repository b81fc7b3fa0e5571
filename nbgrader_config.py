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
# Seconds each cell may run in the commands that run a notebook in a kernel: `nbgrader validate`
# (the Validate button). `nbgrader autograde` runs no kernel (see below): its limits are the
# rubric's, or c.SandboxedGrading.time_limit and memory_limit.
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

# --- Sandboxed autograde (issue 12) ---------------------------------------------------------
# `nbgrader autograde` grades through the course's sandbox, suites and limits, exactly like
# `python -m autograder grade-batch`: no student code runs in a kernel next to the hidden
# tests. The steps are in autograder/nbgrader_autograde.py; Execute is replaced by
# SandboxedGrading, OverwriteCells by SanitizeCells (no checksum warning for untouched grade
# cells), AssignLatePenalties by LatePenalties (due dates below); PrintableIds removes a
# grade_id with terminal escapes before nbgrader prints it, and the exporter keeps a notebook
# nbgrader cannot read (or that is no regular file) from failing the student's whole submission.
import sys  # noqa: E402

if os.path.isdir(os.path.join(c.CourseDirectory.root, "autograder")) and \
        c.CourseDirectory.root not in sys.path:
    sys.path.insert(0, c.CourseDirectory.root)  # the `nbgrader` command does not add it

from nbconvert.preprocessors import ClearMetadataPreprocessor  # noqa: E402
from nbgrader.preprocessors import (  # noqa: E402
    ClearOutput,
    DeduplicateIds,
    IgnorePattern,
    LimitOutput,
    OverwriteKernelspec,
    SaveAutoGrades,
)

from autograder.nbgrader_autograde import (  # noqa: E402
    CheckMetadata,
    LatePenalties,
    PrintableIds,
    SandboxedExporter,
    SandboxedGrading,
    SanitizeCells,
    guard_submissions,
)

# HTML in what a student wrote (Markdown cells, outputs) is sanitized wherever nbgrader renders a
# submission: the feedback pages and Formgrader, which serves it on the instructor's own server.
# Such a page shows at most 500 of a student's own cells, with 50,000 characters of code,
# 100,000 of Markdown and 4 MiB of attachments, so that one submission cannot hold that server
# for minutes (1 MB of code took 59 s of its CPU and 1.5 GB of its memory for one page).
c.HTMLExporter.sanitize_html = True
c.HTMLExporter.preprocessors = ["autograder.nbgrader_autograde.PageBudget",
                                "autograder.nbgrader_autograde.InertMarkdown"]
c.HTMLExporter.filters = {"markdown2html": "autograder.nbgrader_autograde.markdown2html"}

# Submissions are read as grade-batch reads them: no folder that is a link, only regular files
# copied beside the notebooks, a timestamp.txt of its own; hidden student folders are named in
# the log. A student id with glob characters, control characters, HTML's < > " ' & or a name
# that is not UTF-8 is not graded (nbgrader would mishandle it, or Formgrader show it as markup).
guard_submissions()

c.Autograde.exporter_class = SandboxedExporter
c.Autograde.sanitize_preprocessors = [
    PrintableIds, ClearOutput, DeduplicateIds, OverwriteKernelspec, SanitizeCells, CheckMetadata]
c.Autograde.autograde_preprocessors = [
    SandboxedGrading, IgnorePattern, ClearMetadataPreprocessor, LimitOutput, SaveAutoGrades,
    LatePenalties, CheckMetadata]
# c.SandboxedGrading.sandbox = "required"  # refuse to grade where bubblewrap does not work

# Due dates (nbgrader's gradebook keeps them; a submission's timestamp.txt says when it came):
# c.LatePenalties.due_dates = {"schedules": "2026-03-06 17:00:00 Europe/London",
#                              "resilience": "2026-03-20 17:00:00 Europe/London"}
# Penalty: nbgrader's late-submission plugin; this one takes 10% of the score per started day.
c.AssignLatePenalties.plugin_class = "autograder.nbgrader_autograde.PercentPerDayLate"
c.PercentPerDayLate.percent_per_day = 10
# `nbgrader export` writes grades.csv with every field quoted and no cell a spreadsheet runs as a
# formula (nbgrader's own plugin writes student ids raw); for Canvas:
# `nbgrader export --exporter=autograder.nbgrader_export.CanvasExportPlugin --to canvas.csv`
c.ExportApp.plugin_class = "autograder.nbgrader_export.CsvExportPlugin"
# --- end of sandboxed autograde -------------------------------------------------------------
