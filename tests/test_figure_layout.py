"""What a reader sees in the source notebooks' figures: drawn in this process with Agg from the
notebooks' own cells, then measured. A figure can have a title, labels and the right colours
and still hide its point: a burst drawn under the axis, a label cut off by the frame, two panels
side by side whose same colour means different numbers."""

from __future__ import annotations

import base64
import struct
from datetime import datetime
from itertools import pairwise

import fixtures
import matplotlib
import nbformat
import pytest

from autograder.reference import SOLUTIONS
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


# JupyterLab in a 1024 px window with the file browser open leaves about 700 px for a cell's
# output and shrinks a wider picture to fit. Up to 800 px wide, a 10 pt label drawn at the
# inline backend's 100 dpi (about 14 px) still shows at 12 px; at 1,290 px it showed at 6 px.
WIDEST_FIGURE = 800


@pytest.mark.fast  # reads the stored outputs; no kernel
@pytest.mark.parametrize("path", sorted(SOLUTIONS.glob("*/*.ipynb")), ids=lambda path: path.stem)
def test_every_stored_figure_fits_a_laptops_notebook_column(path):
    """The figures as `make outputs` stores them in the source notebooks (the student copies
    carry no outputs: each student's notebook draws them with the same code)."""
    widths = []
    for cell in nbformat.read(path, as_version=4).cells:
        for output in cell.get("outputs", []) if cell.cell_type == "code" else []:
            png = output.get("data", {}).get("image/png")
            if png:
                # A PNG's width is the first 4 bytes of its IHDR chunk, at byte 16.
                (width,) = struct.unpack(">I", base64.b64decode(png)[16:20])
                widths.append((cell.get("id"), width))
    assert widths, f"{path.name} stores no figure: run `make outputs` first"
    wide = [(cell, width) for cell, width in widths if width > WIDEST_FIGURE]
    assert not wide, (
        f"{path.name}: figures wider than {WIDEST_FIGURE} px (cell id, px): {wide}; JupyterLab "
        "shrinks them, and their labels with them, to fit a laptop's notebook column")


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


def test_05_the_delays_figure_numbers_delays_as_the_exercise_does():
    """Column i is delay i, the wait after failure i, both counted from 0 as in the exercise.
    An axis that read "attempt i (failures so far)" counted one failure more than delay i
    follows: the off-by-one the notebook's pitfalls warn about."""
    names, (figure,) = draw("05_backoff_delays", "code_927f93a8")
    ax = figure.axes[0]
    label = ax.get_xlabel()
    assert "delay i" in label and "after failure i" in label and "so far" not in label, label
    assert list(ax.get_xticks()) == list(range(10))
    for i, column in enumerate(zip(*names["draws"], strict=True)):
        ceiling = min(names["spread_cap"], names["spread_base"] * 2 ** i)
        assert max(column) <= ceiling, f"column {i} rises above delay {i}'s ceiling {ceiling}"


def test_05_the_two_ideal_lines_differ_and_the_shared_legend_names_each_ones_panel():
    """One legend below both panels lists both ideals: drawn alike, the reader cannot tell
    which grey line is one call per client and which is clients / 100 per second."""
    _, (figure,) = draw("05_backoff_delays", "code_1de699f2")
    (legend,) = figure.legends
    labels = [text.get_text() for text in legend.get_texts()]
    ideals = []
    for ax, side in zip(figure.axes, ("left", "right"), strict=True):
        (ideal,) = [line for line in ax.get_lines() if "ideal" in line.get_label()]
        assert ideal.get_label() in labels, f"the legend lacks {ideal.get_label()!r}: {labels}"
        assert f"({side})" in ideal.get_label(), (
            f"{ideal.get_label()!r}, drawn in the {side} panel, does not say so")
        ideals.append(ideal)
    looks = [(line.get_color(), line._unscaled_dash_pattern) for line in ideals]
    assert looks[0][1] != looks[1][1], f"the two ideal lines share one dash pattern: {looks}"
    others = {(line.get_color(), line._unscaled_dash_pattern)
              for ax in figure.axes for line in ax.get_lines() if line not in ideals}
    assert not others & set(looks), "an ideal line looks like a strategy's line"


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


def test_01_each_item_has_a_bar_from_its_start_to_its_end_and_words_inside_the_figure():
    names, (figure,) = draw("01_parse_cron_field", "code_a63c3cc2")
    items, examples = names["items"], names["examples"]
    (ax,) = figure.axes
    bars = [line for line in ax.get_lines() if line.get_gid() == "stretch"]
    assert len(bars) == sum(len(parts) for parts in items.values()), "one bar per item"
    bars_of_row: dict[int, list] = {}
    for bar in bars:
        row = int(bar.get_ydata()[0])
        bars_of_row.setdefault(row, []).append(bar)
    for row, (field, parts) in enumerate(items.items()):
        drawn = bars_of_row.get(row, [])
        assert len(drawn) == len(parts), f"{field!r}: {len(drawn)} bars for {len(parts)} items"
        for bar, (start, end, _) in zip(drawn, parts, strict=True):
            left, right = bar.get_xdata()
            assert left < start <= end < right and right - left < end - start + 1, (
                f"{field!r}: the bar of item {start}-{end} runs from {left} to {right}")
            y = bar.get_ydata()[0]
            assert row < y < row + 0.5, f"{field!r}: its bar at {y} is not just under its dots"
            # The step counts from the start: the start is always selected.
            assert start in examples[field], f"{field!r}: {start} starts an item, unselected"
        assert all(any(start <= value <= end for start, end, _ in parts)
                   for value in examples[field]), f"{field!r}: a value lies on no bar"
    assert 18 in examples["3-20/5"] and 20 not in examples["3-20/5"]
    renderer = figure.canvas.get_renderer()
    figure.draw(renderer)
    page = figure.bbox
    boxes = [text.get_window_extent(renderer) for text in ax.texts]
    assert [text.get_text() for text in ax.texts][-1] == "45  +  0 to 10, step 5  +  5"
    for text, box in zip(ax.texts, boxes, strict=True):
        assert page.x0 <= box.x0 and box.x1 <= page.x1, (
            f"the words {text.get_text()!r} at the right are cut off by the figure's edge")
    for upper, lower in pairwise(boxes):
        assert upper.y0 > lower.y1, "two rows' words at the right overlap"


def _run_order():
    from autograder.reference import namespace
    return namespace(exercise_for("04_run_order"))["run_order"]


def _arrows(ax) -> dict[tuple[str, str], matplotlib.text.Annotation]:
    """The arrows a 04 diagram drew, by (dependency, job) from their gid "dependency -> job"."""
    return {tuple(text.get_gid().split(" -> ")): text for text in ax.texts if text.get_gid()}


def _on_a_cycle(tasks: dict[str, list[str]]) -> set[tuple[str, str]]:
    """The arrows (dependency, job) that lie on a cycle: those whose dependency waits, through
    some chain of arrows, for the job."""
    def reaches(start: str, goal: str) -> bool:
        seen, todo = set(), [start]
        while todo:
            job = todo.pop()
            if job == goal:
                return True
            seen.add(job)
            todo += [need for need in tasks[job] if need not in seen]
        return False
    return {(need, job) for job, needs in tasks.items() for need in needs if reaches(need, job)}


def _inside_and_apart(figure, renderer) -> None:
    """Every arrow lies inside its axes and below its title; the titles do not overlap."""
    titles = [ax.title.get_window_extent(renderer) for ax in figure.axes]
    for ax, title in zip(figure.axes, titles, strict=True):
        frame = ax.get_window_extent(renderer)
        for (need, job), arrow in _arrows(ax).items():
            box = arrow.arrow_patch.get_window_extent(renderer)
            assert frame.y0 <= box.y0 and box.y1 < min(frame.y1, title.y0), (
                f"{ax.get_title()!r}: the arrow {need} -> {job} runs out of its panel or into "
                "its title")
    for one, other in pairwise(titles):
        assert not one.overlaps(other), "two panels' titles overlap"


def test_04_the_diagrams_number_the_morning_in_run_order_and_draw_each_cycle_in_vermillion():
    names, (figure,) = draw("04_run_order", "code_fde54646")
    left, middle, right = figure.axes
    order = _run_order()(names["morning"])
    assert names["morning_order"] == order, "the numbers must be the order run_order gives"
    labels = {text.get_text() for text in left.texts if text.get_text()}
    assert labels == {f"{n}. {job}" for n, job in enumerate(order, start=1)}
    vermillion = matplotlib.colors.to_rgba(names["VERMILLION"])
    for ax, tasks in ((left, names["morning"]), (middle, names["with_a_cycle"]),
                      (right, names["waits_for_itself"])):
        arrows = _arrows(ax)
        assert set(arrows) == {(need, job) for job, needs in tasks.items() for need in needs}
        drawn = {pair for pair, arrow in arrows.items()
                 if arrow.arrow_patch.get_edgecolor() == vermillion}
        assert drawn == _on_a_cycle(tasks), f"{ax.get_title()!r}: the vermillion arrows"
    assert _on_a_cycle(names["with_a_cycle"]) and ("risk", "risk") in _on_a_cycle(
        names["waits_for_itself"])
    renderer = figure.canvas.get_renderer()
    figure.draw(renderer)
    _inside_and_apart(figure, renderer)
    # The two arrows between risk and limits are two arrows, not one line drawn twice.
    both = _arrows(middle)
    there, back = (both[pair].arrow_patch.get_window_extent(renderer)
                   for pair in (("risk", "limits"), ("limits", "risk")))
    assert abs(there.x0 - back.x0) > 10 and abs(there.x1 - back.x1) > 10
    # The loop of a job that waits for itself rises clear of its box.
    loop = _arrows(right)["risk", "risk"].arrow_patch.get_window_extent(renderer)
    risk_box = next(text for text in right.texts if text.get_text() == "risk")
    assert loop.y1 > risk_box.get_bbox_patch().get_window_extent(renderer).y1 + 10


def test_04_on_a_line_in_run_order_every_arrow_points_forward_and_a_cycle_points_back():
    names, (figure,) = draw("04_run_order", "code_b5d2f8e3")
    top, bottom = figure.axes
    vermillion = matplotlib.colors.to_rgba(names["VERMILLION"])
    for ax, tasks in ((top, names["morning"]), (bottom, names["with_a_cycle"])):
        place = {text.get_text().split(". ")[-1]: text.get_position()[0]
                 for text in ax.texts if text.get_text()}
        backwards = set()
        for (need, job), arrow in _arrows(ax).items():
            assert arrow.xy[0] == place[job] and arrow.xyann[0] == place[need]
            pointing_back = place[need] > place[job]
            assert (arrow.arrow_patch.get_edgecolor() == vermillion) == pointing_back
            if pointing_back:
                backwards.add((need, job))
        if ax is top:
            assert sorted(place, key=place.get) == _run_order()(tasks)
            assert not backwards, "in run order an arrow points back"
        else:
            assert backwards and backwards == set(names["back"]), backwards
            assert all(f"{need} → {job}" in ax.get_title() for need, job in backwards)
    renderer = figure.canvas.get_renderer()
    figure.draw(renderer)
    _inside_and_apart(figure, renderer)
