"""Every figure the source notebooks draw is described in words right under it (for readers of
a screen reader, and for anyone the picture does not reach), is drawn with colours chosen for
colour-blind readers rather than matplotlib's default cycle, and has a title and labelled axes
in the code that draws it. Read from the stored outputs, so no kernel is needed."""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

from autograder.reference import SOLUTIONS

NOTEBOOKS = sorted(SOLUTIONS.glob("*/*.ipynb"))
DESCRIPTION = "*Figure description.*"


def figure_cells(path: Path) -> list[tuple[int, nbformat.NotebookNode]]:
    notebook = nbformat.read(path, as_version=4)
    found = []
    for index, cell in enumerate(notebook.cells):
        if cell.cell_type == "code" and any(
                "image/png" in output.get("data", {}) for output in cell.get("outputs", [])):
            found.append((index, cell))
    return found


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda path: path.stem)
def test_every_figure_has_a_description_right_under_it(path):
    notebook = nbformat.read(path, as_version=4)
    figures = figure_cells(path)
    assert figures, f"{path.name} stores no figure: run `make outputs` first"
    for index, cell in figures:
        following = notebook.cells[index + 1] if index + 1 < len(notebook.cells) else None
        assert following is not None and following.cell_type == "markdown" and \
            following.source.startswith(DESCRIPTION), (
                f"{path.name}, cell {cell.get('id')}: the figure needs a markdown cell right under "
                f"it that starts with {DESCRIPTION!r}")
        words = len(following.source.split())
        assert 20 <= words <= 160, (
            f"{path.name}, cell {cell.get('id')}: a description of {words} words")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda path: path.stem)
def test_figures_use_no_default_colour_cycle_and_are_titled(path):
    notebook = nbformat.read(path, as_version=4)
    # The code that draws a figure may live in a function defined in an earlier cell.
    code = "\n".join(cell.source for cell in notebook.cells if cell.cell_type == "code")
    assert not re.search(r"""["']tab:[a-z]+["']""", code), (
        f"{path.name} uses matplotlib's tab: colours; use the Okabe-Ito colours instead")
    assert "set_title(" in code or "suptitle(" in code, f"{path.name}: a figure without a title"
    assert ("set_xlabel(" in code and "set_ylabel(" in code) or 'axis("off")' in code, (
        f"{path.name}: a figure without labelled axes")


def test_the_capstone_timeline_is_the_same_whatever_order_its_events_arrive_in():
    """07's timeline shows the replayed day, whose two triggers fired at once finish in an order
    that timing decides: drawn from the events in either order, the picture is the same."""
    import io
    from datetime import UTC, datetime, timedelta
    from zoneinfo import ZoneInfo

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    notebook = nbformat.read(SOLUTIONS / "capstone" / "07_safe_scheduler.ipynb", as_version=4)
    source = next(cell.source for cell in notebook.cells
                  if cell.cell_type == "code" and "def draw_timeline" in cell.source)
    namespace = {"datetime": datetime, "timedelta": timedelta, "UTC": UTC, "ZoneInfo": ZoneInfo}
    exec(compile(source, "07 timeline cell", "exec"), namespace)  # noqa: S102 (the course's own cell)
    events = namespace["ILLUSTRATION"]
    assert any(a["window"] == b["window"] and a["at"] == b["at"] and a is not b
               for a in events for b in events), "the illustration has no two events at one moment"

    def png(history: list) -> bytes:
        figure = namespace["draw_timeline"](history, "order")
        out = io.BytesIO()
        figure.savefig(out, format="png", metadata={"Software": None})
        plt.close(figure)
        return out.getvalue()

    assert png(list(events)) == png(list(reversed(events)))
