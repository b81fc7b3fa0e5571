"""Reading a submitted notebook without nbformat gives what reading it with nbformat gives.

`notebook.read_notebook` reads a plain version 4 notebook (what Jupyter saves) itself and
hands anything else to `nbformat.reads`. These tests hold the two readings equal on generated
documents, odd and hostile ones included: the same refusal, or the same code to run, the same
problems and the same exercise.
"""

from __future__ import annotations

import json
import logging
import warnings
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from autograder import notebook as reading
from autograder.grading import recognise
from autograder.rubric import EXERCISES, exercise_for

pytestmark = pytest.mark.fast
REPOSITORY = Path(__file__).resolve().parent.parent
PARSE = exercise_for("01_parse_cron_field")
GRADE_IDS = sorted({item.grade_id for exercise in EXERCISES for item in exercise.items}
                   | set(reading.answer_cell_ids(PARSE)))

TEXT = st.text(alphabet=st.characters(codec="utf-8"), max_size=12)
NBGRADER = st.fixed_dictionaries({}, optional={
    "grade_id": st.sampled_from(GRADE_IDS) | TEXT | st.integers(0, 3),
    "solution": st.booleans() | st.none(),
    "grade": st.booleans(),
    "locked": st.booleans(),
    "points": st.integers(0, 5) | st.floats(allow_nan=False),
})
METADATA = st.fixed_dictionaries({}, optional={"nbgrader": NBGRADER | st.none() | TEXT,
                                               "trusted": st.booleans(), "tags": st.lists(TEXT)})
SOURCE = (TEXT | st.lists(TEXT, max_size=3)
          | st.lists(TEXT | st.integers() | st.none(), min_size=1, max_size=3)
          | st.integers() | st.none() | st.dictionaries(TEXT, TEXT, max_size=2))
CELL = st.fixed_dictionaries({}, optional={
    "cell_type": st.sampled_from(["code", "markdown", "raw", "heading", ""]) | st.integers(0, 2),
    "metadata": METADATA | st.none() | st.integers(0, 2) | TEXT | st.lists(TEXT, max_size=1),
    "source": SOURCE,
    "id": st.sampled_from(["a", "b", "same", "x" * 70, "not valid!"]) | st.integers(0, 2),
    "outputs": st.lists(st.fixed_dictionaries({"output_type": st.just("stream"),
                                               "name": st.just("stdout"), "text": SOURCE}),
                        max_size=1),
    "execution_count": st.none() | st.integers(0, 9),
    "attachments": st.dictionaries(TEXT, st.dictionaries(TEXT, TEXT, max_size=1), max_size=1),
})
DOCUMENT = st.fixed_dictionaries({
    "cells": st.lists(CELL | st.none() | st.integers(0, 2) | TEXT, max_size=6),
}, optional={
    "nbformat": st.sampled_from([4, 4, 4, 3, 5, 1, 2, 0, -1, "4", 4.0, True, None]),
    "nbformat_minor": st.sampled_from([5, 4, 2, 0, 99, -1, "5", None, 4.5]),
    "metadata": st.just({}) | st.none() | st.dictionaries(TEXT, TEXT, max_size=1),
    "worksheets": st.just([]),
})
# A notebook Jupyter saves: version 4, every cell a dict with metadata and a source of text.
SAVED_CELL = st.fixed_dictionaries({
    "cell_type": st.sampled_from(["code", "markdown", "raw"]),
    "metadata": METADATA,
    "source": TEXT | st.lists(TEXT, max_size=3),
}, optional={"id": st.sampled_from(["a", "b", "same"]), "outputs": st.just([]),
             "execution_count": st.none()})
SAVED = st.fixed_dictionaries({
    "cells": st.lists(SAVED_CELL, max_size=6),
    "nbformat": st.just(4),
    "nbformat_minor": st.sampled_from([0, 2, 4, 5, 99]),
    "metadata": st.just({}),
})


def reading_of(path: Path, monkeypatch: pytest.MonkeyPatch | None = None) -> tuple:
    """What grading takes from the file: (the refusal) or (the code to run, the problems, the
    exercise recognised by the cells alone, the amount of code as grading counts it)."""
    try:
        with warnings.catch_warnings():  # nbformat warns of missing and repeated cell ids
            warnings.simplefilter("ignore")
            document = reading.read_notebook(path)
    except reading.NotebookError as error:
        return ("refused", type(error).__name__, str(error).split(" (")[0])
    extracted = reading.extract(document, PARSE)
    exercise = recognise(path.with_name("submission.ipynb"), document)
    code = sum(len(str(cell.get("source", ""))) for cell in document["cells"]
               if isinstance(cell, dict) and cell.get("cell_type") == "code")
    return ("read", extracted.prelude, extracted.cells, extracted.problems,
            exercise.notebook if exercise else None, code)


def both_readings(tmp_path: Path, document: dict, monkeypatch: pytest.MonkeyPatch) -> tuple:
    path = tmp_path / "01_parse_cron_field.ipynb"
    path.write_text(json.dumps(document))
    ours = reading_of(path)
    with monkeypatch.context() as patched:  # every document through nbformat
        patched.setattr(reading, "plain_version_4", lambda document: None)
        theirs = reading_of(path)
    return ours, theirs


@pytest.fixture(autouse=True)
def _quiet_nbformat(caplog):
    caplog.set_level(logging.CRITICAL)  # nbformat logs "Notebook JSON is invalid" and reads on


@settings(max_examples=400, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(document=DOCUMENT)
def test_any_document_is_read_as_nbformat_reads_it(tmp_path, monkeypatch, document):
    ours, theirs = both_readings(tmp_path, document, monkeypatch)
    assert ours == theirs


@settings(max_examples=200, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(document=SAVED)
def test_a_saved_notebook_is_read_without_nbformat_and_as_nbformat_reads_it(
        tmp_path, monkeypatch, document):
    kept = reading.notebook_json.prune(json.dumps(document).encode(), 2**20, 2**20, 5000)
    assert reading.plain_version_4(kept) is not None
    ours, theirs = both_readings(tmp_path, document, monkeypatch)
    assert ours == theirs
    assert ours[0] == "read"


@pytest.mark.parametrize("path", sorted((REPOSITORY / "notebooks").glob("*/*.ipynb"))
                         + sorted((REPOSITORY / "solutions").glob("*/*.ipynb")),
                         ids=lambda path: f"{path.parent.parent.name}/{path.name}")
def test_the_course_notebooks_are_read_without_nbformat(path, monkeypatch):
    kept = reading.notebook_json.prune(path.read_bytes(), 2**20, 2**20, 5000)
    assert reading.plain_version_4(kept) is not None
    ours = reading_of(path)
    with monkeypatch.context() as patched:
        patched.setattr(reading, "plain_version_4", lambda document: None)
        assert ours == reading_of(path)


@pytest.mark.parametrize("document, refused", [
    ({"cells": [None], "nbformat": 4, "nbformat_minor": 5}, True),
    ({"cells": [{"cell_type": "code", "source": "x = 1"}], "nbformat": 4}, True),
    ({"cells": [{"cell_type": "code", "metadata": {}, "source": ["a", 1]}], "nbformat": 4},
     True),
    ({"cells": [], "nbformat": 5, "nbformat_minor": 0}, True),
    ({"cells": [{"cell_type": "code", "metadata": {}, "source": 7}], "nbformat": 4}, False),
])
def test_what_is_not_plainly_version_4_goes_to_nbformat(tmp_path, monkeypatch, document,
                                                        refused):
    kept = reading.notebook_json.prune(json.dumps(document).encode(), 2**20, 2**20, 5000)
    assert reading.plain_version_4(kept) is None
    ours, theirs = both_readings(tmp_path, document, monkeypatch)
    assert ours == theirs
    assert (ours[0] == "refused") is refused


@pytest.mark.parametrize("exercise", EXERCISES, ids=lambda exercise: exercise.notebook)
def test_the_reference_setup_and_answer_cells_are_read_as_nbformat_reads_them(exercise):
    from autograder import reference

    validated = reference.source_notebook(exercise).cells  # read by nbformat
    assert reference.setup_sources(exercise) == tuple(
        cell.source for cell in validated if reference.is_setup_cell(cell))
    assert reference.answer_cell_ids(exercise) == tuple(
        reference.nbgrader_meta(cell)["grade_id"] for cell in validated
        if reference.is_answer_cell(cell))
    assert reference.setup_sources(exercise) or exercise.notebook in {
        "01_parse_cron_field", "06_append_if_new"}


def test_working_out_expected_values_reads_the_solutions_without_nbformat():
    """A first run works out every expected value from `solutions/`: the course's own files,
    which nbval and the test above check, are read as plain JSON. Importing nbformat and
    compiling its schema would cost that run about a tenth of a second of CPU."""
    import subprocess
    import sys

    script = ("import sys\nfrom autograder import grading\n"
              "assert grading.prepare() == []\nprint('nbformat' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", script], cwd=REPOSITORY, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "False"


def test_nbformat_validates_without_building_iri_parsers():
    """Every process that reads a notebook with nbformat (nbgrader, nbval, JupyterLab, the
    grader on a document of another version) validates it with jsonschema. From 4.24 on,
    jsonschema imports rfc3987-syntax when it is installed, and that builds 38 parsers on
    import: a second of CPU before the first notebook. requirements.txt keeps jsonschema
    where it does not, and a schema check still runs."""
    import subprocess
    import sys

    script = ("import sys, nbformat\n"
              "notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell('1')])\n"
              "nbformat.validate(notebook)\n"
              "notebook.cells[0]['execution_count'] = 'one'\n"
              "try:\n    nbformat.validate(notebook)\nexcept nbformat.ValidationError:\n"
              "    print('refused')\n"
              "print(sorted(name for name in sys.modules if name.startswith(('rfc3987', 'lark'))))")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split("\n")[:2] == ["refused", "[]"]
