"""What a reader sees in the source notebooks' figures: drawn in this process with Agg from the
notebooks' own cells, then measured. A figure can have a title, labels and the right colours
and still hide its point: a burst drawn under the axis, a label cut off by the frame, two panels
side by side whose same colour means different numbers."""

from __future__ import annotations

from datetime import datetime

import fixtures
import matplotlib
import pytest

from autograder.rubric import exercise_for

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after the backend is chosen)


def draw(notebook_name: str, grade_id: str) -> tuple[dict, list]:
    """Run the source notebook's code cells up to and including the cell `grade_id`; return
    the names they define and the figures that cell drew."""
    names = fixtures.run_source_notebook(exercise_for(notebook_name), until=grade_id)
    drawn = names["figures_of"][grade_id]
    assert drawn, f"{notebook_name}, {grade_id}: the cell drew no figure"
    return names, drawn


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def test_02_the_two_week_panels_give_one_count_one_colour():
    _, (figure,) = draw("02_cron_matches", "code_b9a1f057")
    images = [image for ax in figure.axes for image in ax.images]
    assert len(images) == 2, "the figure has a week grid on the left and one on the right"
    scales = {(image.norm.vmin, image.norm.vmax, image.get_cmap().N) for image in images}
    assert len(scales) == 1, (
        f"the two panels colour their counts on different scales {sorted(scales)}: a single run "
        "would be pale on one side and dark on the other")


def test_03_the_week_timeline_shows_mondays_midnight_run_whole():
    names, (figure,) = draw("03_next_run", "code_e1600715")
    first = min(run for runs in names["week_runs"].values() for run in runs)
    assert first == datetime(2025, 6, 2, 0, 0)
    left, _ = figure.axes[0].get_xlim()
    assert left < matplotlib.dates.date2num(first), (
        "the first run sits on the left edge of the axes, half hidden by it")


def test_05_the_burst_at_zero_seconds_is_right_of_each_panels_edge():
    _, (figure,) = draw("05_backoff_delays", "code_789c7299")
    for ax in figure.axes:
        left, _ = ax.get_xlim()
        assert left < 0, (
            f"{ax.get_title(loc='left')!r}: the panel starts at {left} s, so the window of the "
            "500 first requests (0 to 0.1 s) is drawn under the vertical axis")


def test_06_every_bar_label_stands_clear_of_the_axes_frame():
    _, (figure,) = draw("06_append_if_new", "code_24bc19e9")
    renderer = figure.canvas.get_renderer()
    figure.draw(renderer)
    labelled = [ax for ax in figure.axes if ax.texts]
    assert labelled, "the ledger bars carry their counts as labels"
    for ax in labelled:
        frame = ax.get_window_extent(renderer)
        for text in ax.texts:
            box = text.get_window_extent(renderer)
            # At least half the label's height between it and the top of the frame: a label
            # that touches the frame line is read as part of it.
            assert frame.y0 <= box.y0 and box.y1 + box.height / 2 <= frame.y1, (
                f"the label {text.get_text()!r} of {ax.get_title()!r} touches the top of the "
                "axes' frame")
