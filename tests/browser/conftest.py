"""Fixtures of the browser suite: a course copy, JupyterLab servers, headless Chromium, screenshots.

Run with `make test-browser` (or `python -m pytest tests/browser`). Chromium is the system one
(Debian's `chromium`, installed by `.ci/run`); nothing is downloaded. A failing test leaves a
screenshot of the page in `build/browser/`.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from labserver import REPOSITORY, LabServer, copy_course, start_lab
from labui import close_all_tabs, open_lab

SCREENSHOTS = REPOSITORY / "build" / "browser"
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
# What the suite must leave exactly as it found it.
WATCHED = ("notebooks", "solutions", "data", "nbgrader_config.py")
# The browser window, unless --window says otherwise: wide enough for JupyterLab's full toolbars.
WINDOW = "1400x1000"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--window", default=WINDOW, metavar="WIDTHxHEIGHT",
        help=f"size of the browser window in CSS pixels (default {WINDOW}); below about 1,100 px "
             "wide JupyterLab moves part of a notebook's toolbar into its overflow menu")


def window_size(config: pytest.Config) -> dict[str, int]:
    found = re.fullmatch(r"(\d+)x(\d+)", config.getoption("--window"))
    if not found:
        raise pytest.UsageError("--window takes WIDTHxHEIGHT in pixels, such as 1024x768")
    return {"width": int(found.group(1)), "height": int(found.group(2))}


def chromium_path() -> str:
    for candidate in (os.environ.get("CHROMIUM"), shutil.which("chromium"),
                      shutil.which("chromium-browser"), "/usr/bin/chromium"):
        if candidate and Path(candidate).exists():
            return candidate
    raise pytest.UsageError(
        "The browser tests need Chromium: `apt-get install chromium` (Debian), or set CHROMIUM "
        "to a Chromium executable")


def fingerprint(root: Path) -> dict[str, str]:
    """sha256 of every file under the watched course paths of `root`."""
    prints: dict[str, str] = {}
    for part in WATCHED:
        path = root / part
        files = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
        for file in files:
            if "__pycache__" in file.parts or ".ipynb_checkpoints" in file.parts:
                continue
            prints[str(file.relative_to(root))] = hashlib.sha256(file.read_bytes()).hexdigest()
    return prints


@pytest.fixture(scope="session")
def course(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A copy of the course for the browser to work in; at the end, neither it nor the
    repository may have changed (autosave is off and nothing is saved)."""
    before = fingerprint(REPOSITORY)
    copy = copy_course(tmp_path_factory.mktemp("course"))
    yield copy
    assert fingerprint(REPOSITORY) == before, "the browser suite changed a course file"
    after = fingerprint(copy)  # files the tests add on purpose (broken copies) are not compared
    changed = sorted(name for name, digest in before.items() if after.get(name) != digest)
    assert not changed, f"JupyterLab wrote to course files of its copy: {changed}"


@pytest.fixture(scope="session")
def student_lab(course: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LabServer]:
    """JupyterLab as `make lab` starts it: on notebooks/, with the student configuration."""
    server = start_lab(course, tmp_path_factory.mktemp("student-lab"), student=True)
    yield server
    server.stop()


@pytest.fixture(scope="session")
def instructor_lab(course: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LabServer]:
    """JupyterLab as `make lab-instructor` starts it: at the course root."""
    server = start_lab(course, tmp_path_factory.mktemp("instructor-lab"), student=False)
    yield server
    server.stop()


@pytest.fixture(scope="session")
def browser(pytestconfig: pytest.Config):
    from playwright.sync_api import sync_playwright

    size = window_size(pytestconfig)
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=chromium_path(), headless=True, args=CHROMIUM_ARGS)
        chromium.window = size  # type: ignore[attr-defined]
        yield chromium
        chromium.close()


def new_page(browser):
    """A page in a fresh context (its own profile) that records console errors and uncaught
    exceptions in `page.console_errors`; as large as --window says."""
    context = browser.new_context(viewport=browser.window)
    page = context.new_page()
    page.console_errors = []  # type: ignore[attr-defined]

    def on_console(message) -> None:
        if message.type == "error":
            where = message.location.get("url")
            page.console_errors.append(f"{message.text} (at {where})" if where else message.text)

    page.on("console", on_console)
    page.on("pageerror",
            lambda error: page.console_errors.append(f"uncaught: {error}\n{error.stack}"))
    return page


def screenshot_if_failed(page, request: pytest.FixtureRequest) -> None:
    """Keep what the page showed when a test failed, for a person to look at: build/browser/."""
    report = getattr(request.node, "report_call", None)
    if report is None or not report.failed:
        return
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    name = re.sub(r"[^A-Za-z0-9_.-]+", "_", request.node.name).strip("_")
    try:
        page.screenshot(path=str(SCREENSHOTS / f"{name}.png"))
    except Exception as error:  # a screenshot must not hide the test's own failure
        print(f"could not save a screenshot: {error}")


@pytest.fixture
def page(browser, request: pytest.FixtureRequest):
    """A fresh page of its own; a screenshot if the test fails."""
    page = new_page(browser)
    yield page
    screenshot_if_failed(page, request)
    page.context.close()


def shared_lab_page(browser, server: LabServer):
    """One JupyterLab page per server, loaded once: loading JupyterLab is the slow part."""
    page = new_page(browser)
    open_lab(page, server.url("/lab"))
    return page


@pytest.fixture(scope="session")
def _student_page(browser, student_lab: LabServer):
    page = shared_lab_page(browser, student_lab)
    yield page
    page.context.close()


@pytest.fixture(scope="session")
def _instructor_page(browser, instructor_lab: LabServer):
    page = shared_lab_page(browser, instructor_lab)
    yield page
    page.context.close()


def reuse(page, server: LabServer, request: pytest.FixtureRequest):
    """Hand the shared page to one test, then put it back: tabs closed unsaved, kernels ended."""
    page.console_errors.clear()
    yield page
    screenshot_if_failed(page, request)
    try:
        close_all_tabs(page)
    except Exception:  # a test left the page in a state we cannot undo: start it afresh
        open_lab(page, server.url("/lab"))
    server.shut_down_kernels()


@pytest.fixture
def student_page(_student_page, student_lab: LabServer, request: pytest.FixtureRequest):
    """JupyterLab as a student sees it (`make lab`), shared between the student tests."""
    yield from reuse(_student_page, student_lab, request)


@pytest.fixture
def instructor_page(_instructor_page, instructor_lab: LabServer,
                    request: pytest.FixtureRequest):
    """JupyterLab as an instructor sees it (`make lab-instructor`), shared between tests."""
    yield from reuse(_instructor_page, instructor_lab, request)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    report = yield
    if report.when == "call":
        item.report_call = report  # type: ignore[attr-defined]
    return report

