"""Start JupyterLab from the project's venv on a temporary copy of the course, as `make lab` does.

The command and its environment come from the Makefile's `lab` and `lab-instructor` recipes, so
the suite's servers cannot drift from what students and instructors start. To them the suite adds
only what a test run needs: the venv's `bin/` *not* on PATH (as when someone types
`.venv/bin/jupyter lab` without activating the venv), 127.0.0.1, a free port and a random token,
autosave off and its own user settings, workspaces and runtime folders, so nothing of the user's
JupyterLab leaks in and no course file is ever written.
"""

from __future__ import annotations

import ctypes
import json
import os
import re
import secrets
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

REPOSITORY = Path(__file__).resolve().parents[2]
# What a student is given (notebooks/ and data/) plus what an instructor works with.
COURSE_PARTS = ("notebooks", "solutions", "data", "autograder", "nbgrader_config.py", "jupyter")

# User settings for the test's JupyterLab: autosave off (the suite must change no file), every cell
# kept in the page (so every figure can be checked), and no calls to the internet for news.
LAB_SETTINGS = {
    "@jupyterlab/docmanager-extension/plugin.jupyterlab-settings": {"autosave": False},
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {
        "fetchNews": "false", "checkForUpdates": False},
}
# The course's assignments: the folders of solutions/ that hold notebooks.
ASSIGNMENTS = {path.name for path in (REPOSITORY / "solutions").iterdir()
               if path.is_dir() and any(path.glob("*.ipynb"))}


def expected_figures(student_notebook: Path) -> dict[int, int]:
    """Figures per cell index in the stored outputs of the notebook's source in solutions/."""
    source = REPOSITORY / "solutions" / student_notebook.relative_to(REPOSITORY / "notebooks")
    cells = nbformat.read(source, as_version=4).cells
    return {index: sum("image/png" in output.get("data", {}) for output in cell.outputs)
            for index, cell in enumerate(cells) if cell.cell_type == "code"}


def venv_bin() -> Path:
    """The `bin/` of the project's venv (`.venv/bin`), or of the Python running the tests."""
    candidate = REPOSITORY / ".venv" / "bin"
    if (candidate / "jupyter").exists():
        return candidate
    return Path(sys.executable).parent


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def copy_course(destination: Path) -> Path:
    """A working copy of the course files the browser may touch; the repository stays untouched."""
    destination.mkdir(parents=True, exist_ok=True)
    for part in COURSE_PARTS:
        source = REPOSITORY / part
        if source.is_dir():
            shutil.copytree(source, destination / part,
                            ignore=shutil.ignore_patterns("__pycache__", ".ipynb_checkpoints"))
        elif source.exists():
            shutil.copy2(source, destination / part)
    return destination


def make_recipe(target: str, course: Path, bin_dir: Path) -> tuple[dict[str, str], list[str]]:
    """The environment and command line of the Makefile's one-line recipe for `target`, as make
    would run them on `course`: `$(CURDIR)` is the course, `$(BIN)` the venv's `bin/`.

    `lab: setup` followed by `JUPYTER_CONFIG_PATH=$(CURDIR)/jupyter/student $(BIN)/jupyter lab
    notebooks` gives ({"JUPYTER_CONFIG_PATH": "<course>/jupyter/student"},
    ["<bin>/jupyter", "lab", "notebooks"]). Anything else the suite cannot reproduce (another
    make variable, a second line) stops it rather than being left out.
    """
    lines = (REPOSITORY / "Makefile").read_text().splitlines()
    start = next((i for i, line in enumerate(lines) if re.match(rf"{re.escape(target)}:", line)),
                 None)
    if start is None:
        raise LookupError(f"the Makefile has no target {target!r}")
    recipe = []
    for line in lines[start + 1:]:
        if not line.startswith("\t"):
            break
        recipe.append(line.strip().lstrip("@-"))
    if len(recipe) != 1:
        raise ValueError(f"make {target} runs {len(recipe)} command lines; the browser suite "
                         f"starts JupyterLab from exactly one: {recipe}")
    known = {"CURDIR": str(course), "BIN": str(bin_dir)}
    unknown = set(re.findall(r"\$\((\w+)\)", recipe[0])) - set(known)
    if unknown or "$$" in recipe[0]:
        raise ValueError(f"make {target}'s recipe uses what the browser suite does not know: "
                         f"{recipe[0]!r}")
    words = shlex.split(re.sub(r"\$\((\w+)\)", lambda found: shlex.quote(known[found.group(1)]),
                               recipe[0]))
    env: dict[str, str] = {}
    while words and re.fullmatch(r"[A-Za-z_]\w*=.*", words[0]):
        name, value = words.pop(0).split("=", 1)
        env[name] = value
    return env, words


def _end_with_parent() -> None:
    """In the server's process: receive SIGTERM when the test run dies (Linux), so no server and
    no kernel outlive an interrupted run."""
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except OSError:
        pass


@dataclass
class LabServer:
    """A running JupyterLab; `url(path)` gives an address with the token."""

    root: Path
    port: int
    token: str
    process: subprocess.Popen
    log_path: Path
    extra: dict = field(default_factory=dict)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def url(self, path: str = "/lab") -> str:
        return f"{self.base}{path}?token={self.token}"

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def shut_down_kernels(self) -> None:
        """Free the shared machine: end every kernel this server runs."""
        with urllib.request.urlopen(self.url("/api/kernels"), timeout=30) as answer:
            kernels = json.load(answer)
        for kernel in kernels:
            request = urllib.request.Request(self.url(f"/api/kernels/{kernel['id']}"),
                                             method="DELETE")
            urllib.request.urlopen(request, timeout=60).close()

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=30)


def start_lab(course: Path, work: Path, *, student: bool,
              startup_timeout: float = 180) -> LabServer:
    """Start JupyterLab on a copy of the course as `make lab` (`student`) or `make lab-instructor`
    does: their recipe's command and environment (`make_recipe`), run at the course's root.

    `work` holds the server's own user settings, runtime files and log. The student's server thus
    reads the course's `jupyter/student` configuration (JUPYTER_CONFIG_PATH), which hides nbgrader's
    instructor and exchange tools, makes Validate check every cell and wraps code cells' lines.
    """
    work.mkdir(parents=True, exist_ok=True)
    settings = work / "settings"
    for name, values in LAB_SETTINGS.items():
        target = settings / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(values))
    token = secrets.token_hex(16)
    port = free_port()
    bin_dir = venv_bin()
    recipe_env, recipe = make_recipe("lab" if student else "lab-instructor", course, bin_dir)
    env = {key: value for key, value in os.environ.items()
           if key not in ("MPLBACKEND", "VIRTUAL_ENV", "PYTHONPATH", "JUPYTER_CONFIG_PATH")}
    # As when the venv is not activated: its bin/ is not on PATH (nbgrader must still find alembic).
    env["PATH"] = os.pathsep.join(
        part for part in env.get("PATH", "").split(os.pathsep)
        if part and Path(part).resolve() != bin_dir.resolve())
    env.update({
        "JUPYTERLAB_SETTINGS_DIR": str(settings),
        "JUPYTERLAB_WORKSPACES_DIR": str(work / "workspaces"),
        "JUPYTER_RUNTIME_DIR": str(work / "runtime"),
        "JUPYTER_CONFIG_DIR": str(work / "config"),
        "JUPYTER_DATA_DIR": str(work / "data"),
        "IPYTHONDIR": str(work / "ipython"),
        "MPLCONFIGDIR": str(work / "matplotlib"),
    })
    env.update(recipe_env)
    log_path = work / "jupyter.log"
    command = [
        *recipe, "--no-browser",
        "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={port}", "--ServerApp.port_retries=0",
        f"--IdentityProvider.token={token}",
        "--LabApp.news_url=None", "--LabApp.check_for_updates_class="
        "jupyterlab.NeverCheckForUpdate",
    ]
    if os.geteuid() == 0:  # CI runs as root
        command.append("--allow-root")
    with open(log_path, "wb") as log:
        process = subprocess.Popen(command, cwd=course, env=env, stdout=log,
                                   stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                   start_new_session=True, preexec_fn=_end_with_parent)
    server = LabServer(root=course, port=port, token=token, process=process, log_path=log_path)
    deadline = time.monotonic() + startup_timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"JupyterLab exited with {process.returncode}:\n{server.log()}")
        try:
            with urllib.request.urlopen(server.url("/api/status"), timeout=5) as answer:
                if answer.status == 200:
                    return server
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
        time.sleep(0.5)  # polling the server's readiness, not waiting for a result
    server.stop()
    raise RuntimeError(f"JupyterLab did not answer within {startup_timeout:.0f} s:\n{server.log()}")
