"""What a person does in JupyterLab, as Playwright steps, and what the page then shows, as data.

Every wait is on a condition in the page (a selector, a kernel state, a prompt), not a sleep.
The checks return a list of problems in plain words, so a test can assert that a healthy notebook
has none and that a deliberately broken one has the expected ones.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from playwright.sync_api import Page
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from autograder.reference import top_level_names

# Generous limits: the machine is shared and slow. Milliseconds, as Playwright counts.
LOAD_MS = 120_000
RUN_MS = 300_000
SETTLE_MS = 2_000  # how long a finished-looking run must stay so (_wait_for_run_end)

ACTIVE_NOTEBOOK = "#jp-main-dock-panel .jp-NotebookPanel:not(.lm-mod-hidden)"
CELL = f"{ACTIVE_NOTEBOOK} .jp-Notebook .jp-Cell"


# A figure cell that needs an answer the student has not written yet draws nothing and says
# so instead of failing ("... finish run_order, then run both again."): no empty chart.
WAITS_FOR_AN_ANSWER = re.compile(r"\bfinish\b.*\bthen run both again\b")


@dataclass
class CellView:
    """One cell as the page shows it after a run."""

    index: int
    kind: str  # "code", "markdown" or "raw"
    prompt: str  # "[3]:", "[*]:", "[ ]:" or "" for other cells
    errors: list[str]  # the text of each error or stderr output
    stdout: str
    images: list[dict]  # {"loaded": bool, "width": int} for each <img> in the outputs

    @property
    def ran(self) -> bool:
        return self.prompt.strip().strip(":").strip("[]").isdigit()


@dataclass
class NotebookRun:
    """What a Restart and Run All left on the page."""

    name: str
    cells: list[CellView]
    console_errors: list[str] = field(default_factory=list)

    @property
    def code_cells(self) -> list[CellView]:
        return [cell for cell in self.cells if cell.kind == "code"]


def open_lab(page: Page, url: str) -> None:
    page.goto(url, timeout=LOAD_MS)
    page.wait_for_selector(".jp-DirListing-item", timeout=LOAD_MS)


def open_from_file_browser(page: Page, relative_path: str) -> None:
    """Double-click through the file browser, folder by folder, to a notebook, as a person does."""
    page.locator(".jp-FileBrowser-crumbs span").first.click()  # back to the root folder
    *folders, filename = relative_path.split("/")
    for name in [*folders, filename]:
        listing = page.locator(".jp-DirListing-content .jp-DirListing-itemText")
        listing.get_by_text(name, exact=True).dblclick(timeout=LOAD_MS)
        if name != filename:
            page.locator(".jp-FileBrowser-crumbs").get_by_text(name, exact=True).wait_for(
                timeout=LOAD_MS)
    page.locator(".lm-DockPanel-tabBar .lm-TabBar-tab.lm-mod-current .lm-TabBar-tabLabel") \
        .get_by_text(filename, exact=True).wait_for(timeout=LOAD_MS)
    page.wait_for_selector(f"{ACTIVE_NOTEBOOK} .jp-Cell", timeout=LOAD_MS)
    wait_for_kernel_idle(page)


def close_all_tabs(page: Page) -> None:
    """File -> Close All Tabs, discarding unsaved changes (the suite never saves)."""
    menu(page, "File", "Close All Tabs")
    while True:
        # Done when the main area is empty; a "save your work?" dialog is answered with Discard.
        page.wait_for_function(
            """() => document.querySelector('.jp-Dialog')
                || !document.querySelector('#jp-main-dock-panel .jp-NotebookPanel, '
                                           + '#jp-main-dock-panel iframe')""",
            timeout=LOAD_MS, polling=100)
        discard = page.locator(".jp-Dialog button").filter(
            has_text=re.compile("Discard|Don.t Save"))
        if not discard.count():
            return
        discard.first.click()
        page.locator(".jp-Dialog").first.wait_for(state="detached", timeout=LOAD_MS)


# The kernel of the active notebook as the status bar shows it ("Python 3 (ipykernel) | Idle"):
# {kernel, status}, or null while the status bar shows no item for that notebook. The status bar
# names the notebook in its item's title ("Change kernel for 01_parse_cron_field.ipynb"), the
# active tab names it too. The notebook's toolbar indicator (.jp-Notebook-ExecutionIndicator) is
# no use: below about 1,100 px JupyterLab moves it into the toolbar's overflow menu, outside the
# notebook's panel; the status bar shows at any width.
KERNEL_STATUS = """(panel) => {
    const notebook = document.querySelector(panel);
    const tab = notebook && document.getElementById(notebook.getAttribute('aria-labelledby'));
    const label = tab && tab.querySelector('.lm-TabBar-tabLabel');
    if (!label) return null;
    const title = 'Change kernel for ' + label.textContent.trim();
    const item = [...document.querySelectorAll('#jp-main-statusbar .jp-StatusBar-TextItem')]
        .find(candidate => candidate.title === title);
    if (!item) return null;
    const text = item.textContent.trim();
    const cut = text.lastIndexOf(' | ');
    return cut < 0 ? {kernel: text, status: ''}
        : {kernel: text.slice(0, cut), status: text.slice(cut + 3)};
}"""
# Started, connected and idle: a kernel is named (not "No Kernel") and its status is Idle.
KERNEL_IDLE = f"""(panel) => {{
    const shown = ({KERNEL_STATUS})(panel);
    return !!shown && shown.kernel !== 'No Kernel' && shown.status === 'Idle';
}}"""


def kernel_status(page: Page) -> str:
    """What the status bar says of the active notebook's kernel, for error messages."""
    shown = page.evaluate(KERNEL_STATUS, ACTIVE_NOTEBOOK)
    return f"{shown['kernel']} | {shown['status']}" if shown else "no status for this notebook"


def wait_for_kernel_idle(page: Page, timeout: float = LOAD_MS) -> None:
    """Wait until the active notebook's kernel is started, connected and idle.

    While a notebook opens, the status bar reads "No Kernel | Initializing", then the kernel's
    name with Initializing, Connecting and Unknown; a restart asked for then is lost. So the
    status bar must name a kernel and say Idle.
    """
    try:
        page.wait_for_function(KERNEL_IDLE, arg=ACTIVE_NOTEBOOK, timeout=timeout, polling=250)
    except PlaywrightTimeout:
        raise AssertionError(
            f"the notebook's kernel was not idle within {timeout / 1000:.0f} s: the status bar "
            f"shows {kernel_status(page)!r}") from None


def menu(page: Page, top: str, item: str) -> None:
    """Choose `top -> item` from JupyterLab's menu bar (item: the label's start)."""
    page.locator(".lm-MenuBar-itemLabel", has_text=top).click()
    page.locator(".lm-Menu:visible .lm-Menu-itemLabel").filter(
        has_text=item).first.click(timeout=LOAD_MS)


def restart_and_run_all(page: Page) -> None:
    """Kernel -> Restart Kernel and Run All Cells..., confirm, and wait until the kernel is done."""
    menu(page, "Kernel", "Restart Kernel and Run All Cells")
    # Every code cell is queued ([*]) at once, then numbered as it runs. A watcher notes that the
    # queue was seen, so stale numbers from an earlier run cannot pass for this one.
    page.evaluate(
        """(panel) => {
            window.__courseRunQueued = false;
            window.__courseRunDoneSince = null;
            const nb = document.querySelector(panel);
            const seen = () => [...nb.querySelectorAll('.jp-CodeCell .jp-InputPrompt')]
                .some(p => p.textContent.includes('*'));
            const watcher = new MutationObserver(() => {
                if (seen()) { window.__courseRunQueued = true; watcher.disconnect(); }
            });
            watcher.observe(nb, {subtree: true, childList: true, characterData: true});
        }""", ACTIVE_NOTEBOOK)
    page.locator(".jp-Dialog .jp-mod-accept").click(timeout=LOAD_MS)
    # Done when the queue was seen, no cell is still queued and the kernel is idle.
    try:
        _wait_for_run_end(page)
    except PlaywrightTimeout:
        prompts = page.eval_on_selector_all(
            f"{ACTIVE_NOTEBOOK} .jp-CodeCell .jp-InputPrompt", "ps => ps.map(p => p.textContent)")
        status = kernel_status(page)
        seen = page.evaluate("window.__courseRunQueued")
        raise AssertionError(
            f"Restart and Run All did not finish within {RUN_MS / 1000:.0f} s: kernel {status!r}, "
            f"queue seen {seen}, prompts {prompts}") from None


def _wait_for_run_end(page: Page) -> None:
    page.wait_for_function(
        f"""(panel) => {{
            const nb = document.querySelector(panel);
            if (!nb || !window.__courseRunQueued) return false;
            const prompts = [...nb.querySelectorAll('.jp-CodeCell .jp-InputPrompt')]
                .map(p => p.textContent.trim());
            const done = prompts.length > 0 && !prompts.some(p => p.includes('*'))
                && prompts.some(p => /\\d/.test(p))
                && ({KERNEL_IDLE})(panel);
            // Between one cell's answer and the next cell's start the notebook can look done
            // for a moment (a busy machine widens it): done counts once it has held SETTLE_MS.
            if (!done) {{ window.__courseRunDoneSince = null; return false; }}
            window.__courseRunDoneSince = window.__courseRunDoneSince || Date.now();
            return Date.now() - window.__courseRunDoneSince >= {SETTLE_MS};
        }}""",
        arg=ACTIVE_NOTEBOOK, timeout=RUN_MS, polling=250)


def read_cells(page: Page) -> list[CellView]:
    """Every cell of the active notebook: prompt, error outputs, printed text and images.

    A folded cell (`jupyter.source_hidden`, as 07's setup cells) shows no execution count, so
    View -> Expand All Code unfolds every cell first (nothing is saved).
    """
    if page.locator(f"{ACTIVE_NOTEBOOK} .jp-InputPlaceholder").count():
        menu(page, "View", "Expand All Code")
        page.wait_for_function(
            "(panel) => !document.querySelector(panel + ' .jp-InputPlaceholder')",
            arg=ACTIVE_NOTEBOOK, timeout=LOAD_MS, polling=100)
    raw = page.eval_on_selector_all(
        CELL,
        """cells => cells.map(cell => ({
            kind: cell.classList.contains('jp-CodeCell') ? 'code'
                : cell.classList.contains('jp-MarkdownCell') ? 'markdown' : 'raw',
            prompt: (cell.querySelector(':scope > .jp-Cell-inputWrapper .jp-InputPrompt')
                     || {textContent: ''}).textContent.trim(),
            errors: [...cell.querySelectorAll(
                '.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]')]
                .map(o => o.textContent),
            stdout: [...cell.querySelectorAll(
                '.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stdout"]')]
                .map(o => o.textContent).join(''),
            images: [...cell.querySelectorAll('.jp-OutputArea-output img')]
                .map(img => ({loaded: img.complete && img.naturalWidth > 0,
                              width: img.naturalWidth})),
        }))""")
    return [CellView(index=i, **cell) for i, cell in enumerate(raw)]


def wait_for_images(page: Page) -> None:
    """Give every figure of the outputs the chance to finish decoding."""
    page.wait_for_function(
        """(sel) => [...document.querySelectorAll(sel + ' .jp-OutputArea-output img')]
                     .every(img => img.complete)""",
        arg=ACTIVE_NOTEBOOK, timeout=LOAD_MS, polling=250)


def error_name(text: str) -> str:
    """`NotImplementedError` from a rendered traceback (its last non-empty line)."""
    lines = [line for line in text.strip().splitlines() if line.strip()]
    last = lines[-1] if lines else ""
    return last.split(":", 1)[0].strip()


def unfinished_knock_on(text: str, cell: CellView, run: NotebookRun,
                        sources: list[str] | None) -> bool:
    """A NameError for a name that an earlier cell, stopped by NotImplementedError, would bind."""
    found = re.search(r"NameError: name '(\w+)' is not defined", text)
    if not found or sources is None:
        return False
    return any(earlier.index < cell.index and earlier.errors
               and all(error_name(e) == "NotImplementedError" for e in earlier.errors)
               and found.group(1) in top_level_names(sources[earlier.index])
               for earlier in run.code_cells)


# Console errors that JupyterLab itself logs, whatever the notebook: not the course's doing.
JUPYTERLAB_CONSOLE_NOISE = (
    # the debugger sidebar asks the kernel for its state and the restart cancels the request
    "Could not restore the debugger state",
)


# nbgrader 0.9.6's Create Assignment panel throws "TypeError: Cannot read properties of null
# (reading 'model')" from its own bundle when a notebook closes with the panel open (harmless).
NBGRADER_BUNDLE = "/lab/extensions/@jupyter/nbgrader/"


def known_outside_error(message: str) -> bool:
    """A console error of JupyterLab or nbgrader themselves, logged whatever the course does."""
    return (any(noise in message for noise in JUPYTERLAB_CONSOLE_NOISE)
            or ("reading 'model'" in message and NBGRADER_BUNDLE in message))


def problems(run: NotebookRun, expected_images: dict[int, int] | None = None,
             sources: list[str] | None = None) -> list[str]:
    """Everything a student would see go wrong after Restart and Run All, in plain words.

    Allowed: `NotImplementedError` tracebacks (answers the student has not written yet), and a
    `NameError` for a name that only an unfinished cell would have defined (`sources`: the cells'
    code from the file). `expected_images` maps a cell's index to the number of figures its
    reference run draws; a cell that ran without an error must show that many, each a loaded <img>.
    """
    found: list[str] = []
    for cell in run.code_cells:
        where = f"{run.name}, cell {cell.index} ({cell.prompt or 'no prompt'})"
        for text in cell.errors:
            name = error_name(text)
            if name != "NotImplementedError" and not unfinished_knock_on(text, cell, run, sources):
                summary = text.strip().splitlines()[-1][:200] if text.strip() else "(empty)"
                found.append(f"{where}: unexpected error output: {summary}")
        for number, image in enumerate(cell.images, start=1):
            if not image["loaded"]:
                found.append(f"{where}: figure {number} did not render (an <img> that failed)")
        if expected_images is not None and not cell.errors:
            wanted = expected_images.get(cell.index, 0)
            if len(cell.images) < wanted and not WAITS_FOR_AN_ANSWER.search(cell.stdout):
                found.append(f"{where}: {wanted} figure(s) expected, {len(cell.images)} shown")
    code = run.code_cells
    if not code or not code[-1].ran:
        last = code[-1] if code else None
        found.append(f"{run.name}: execution did not reach the last code cell"
                     + (f" (cell {last.index} shows {last.prompt!r})" if last else ""))
    not_run = [cell.index for cell in code if not cell.ran]
    if not_run:
        found.append(f"{run.name}: code cells that did not run: {not_run}")
    for message in run.console_errors:
        if known_outside_error(message):
            continue
        found.append(f"{run.name}: browser console error: {message[:300]}")
    return found


def validate(page: Page) -> str:
    """Press the notebook's Validate button (it saves, then runs nbgrader validate on the server);
    the text of the result dialog, which is then closed."""
    page.locator(f"{ACTIVE_NOTEBOOK} .jp-Toolbar").get_by_text("Validate", exact=True).click()
    dialog = page.locator(".jp-Dialog")
    dialog.get_by_text("Validation Results").wait_for(timeout=RUN_MS)
    text = dialog.inner_text()
    dialog.locator(".jp-mod-accept").click()
    dialog.wait_for(state="detached", timeout=LOAD_MS)
    return text


def create_assignment_points(page: Page) -> tuple[str, list[str]]:
    """Open nbgrader's Create Assignment panel; the notebook's total and each graded cell's points.

    The panel lists one widget per cell; a cell that carries points has an editable points box.
    """
    menu(page, "Nbgrader", "Create assignment")
    panel = page.locator(".nbgrader-CreateAssignmentWidget")
    panel.wait_for(state="visible", timeout=LOAD_MS)
    total = panel.locator(".nbgrader-TotalPointsInput:visible").first
    total.wait_for(timeout=LOAD_MS)
    cells = panel.locator(
        ".nbgrader-NotebookWidget:visible .nbgrader-CellPoints:not(.nbgrader-mod-uneditable) input")
    return total.input_value(), [box.input_value() for box in cells.all()]


def formgrader_problems(page: Page, expected: set[str]) -> list[str]:
    """Open Nbgrader -> Formgrader; what keeps it from listing just the `expected` assignments."""
    with page.expect_response(lambda r: "/formgrader/api/assignments" in r.url,
                              timeout=LOAD_MS) as answer:
        menu(page, "Nbgrader", "Formgrader")
    response = answer.value
    if response.status != 200:
        return [f"Formgrader's assignment list answered HTTP {response.status} "
                f"({response.url.split('?')[0]}); the page stays on 'Loading, please wait...'"]
    frame = next((f for f in page.frames if "/formgrader" in f.url), None)
    if frame is None:
        return ["Formgrader's page did not open"]
    rows = frame.locator("table.dataTable tbody tr")
    try:
        rows.first.wait_for(timeout=LOAD_MS)
    except PlaywrightTimeout:
        return ["Formgrader's assignment table shows no row"]
    listed = {row.locator("td").first.inner_text().strip() for row in rows.all()}
    if listed != expected:
        return [f"Formgrader lists {sorted(listed)}, expected {sorted(expected)}"]
    return []
