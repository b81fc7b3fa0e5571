"""`-v/--verbose` says what the sandbox could and could not set up, and why (issue 14).

bubblewrap hidden from PATH, a bwrap that fails, `--sandbox off`, the namespace options, the
seccomp filters (bubblewrap's, and the fallback's network filter, or why there is none) and
control groups (v2, v1, none, errors) each leave a line on stderr with -v, and nothing without
it. The command-line tests grade a file that is not a notebook, so no
sandbox starts; the rest call the runner in this process with pytest's caplog.
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest
from grader_cli import environment_with

from autograder import cgroups, cli, isolation, processes, seccomp, setup_log

pytestmark = pytest.mark.fast

GRADER = [sys.executable, "-m", "autograder"]
FAILING_BWRAP = """#!/bin/sh
echo "bwrap: No permissions to create new namespace (a message of the machine)" >&2
exit 7
"""


@pytest.fixture
def said(monkeypatch, caplog) -> pytest.LogCaptureFixture:
    """caplog at DEBUG for the grader's loggers, with the runner's say-once memory empty."""
    monkeypatch.setattr(setup_log, "_said", set())
    caplog.set_level(logging.DEBUG, logger="autograder")
    return caplog


def _grade(tmp_path: Path, env: dict[str, str], *options: str) -> subprocess.CompletedProcess:
    notes = tmp_path / "notes.ipynb"
    notes.write_text("my answers, not a notebook\n")
    done = subprocess.run([*GRADER, "grade", str(notes), "--results", str(tmp_path / "r.json"),
                           *options], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    return done


def _verbose_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("autograder.")]


def test_verbose_says_that_bwrap_is_not_on_path_and_plain_processes_are_used(tmp_path):
    done = _grade(tmp_path, environment_with(tmp_path, None), "-v")
    lines = _verbose_lines(done.stderr)
    assert any("bubblewrap: no bwrap on PATH" in line for line in lines), done.stderr
    assert any("sandbox: unisolated worker processes" in line for line in lines), done.stderr


def test_verbose_shows_why_a_bwrap_that_fails_was_not_used(tmp_path):
    done = _grade(tmp_path, environment_with(tmp_path, FAILING_BWRAP), "--verbose")
    failure = [line for line in _verbose_lines(done.stderr) if "fails here" in line]
    assert len(failure) == 1, done.stderr
    assert "exit status 7" in failure[0]
    assert "No permissions to create new namespace (a message of the machine)" in failure[0]
    assert "--die-with-parent" in failure[0]  # the options it was tried with


def test_grade_batch_takes_verbose_too(tmp_path):
    submitted = tmp_path / "submitted" / "ada" / "schedules"
    submitted.mkdir(parents=True)
    (submitted / "notes.ipynb").write_text("not a notebook\n")
    done = subprocess.run([*GRADER, "grade-batch", str(tmp_path / "submitted"), "--out",
                           str(tmp_path / "out"), "--sandbox", "off", "-v"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert any("sandbox: off (--sandbox=off), so bubblewrap is not tried" in line
               for line in _verbose_lines(done.stderr)), done.stderr


@pytest.mark.parametrize("bwrap", [None, FAILING_BWRAP], ids=["hidden", "failing"])
def test_without_verbose_nothing_new_is_printed(tmp_path, bwrap):
    env = environment_with(tmp_path, bwrap)
    quiet = _grade(tmp_path, env)
    assert _verbose_lines(quiet.stderr) == [], quiet.stderr
    assert not any(word in quiet.stderr for word in ("bubblewrap:", "seccomp:", "cgroups:",
                                                     "sandbox:")), quiet.stderr
    assert "bubblewrap (bwrap) is not available" in quiet.stderr  # the warning as before
    loud = _grade(tmp_path, env, "-v")
    assert _verbose_lines(loud.stderr), "the same run with -v says more"


def test_a_warning_of_the_grader_prints_nothing_unless_verbose_asks():
    # Without a handler of its own, logging would print warnings through its last resort.
    done = subprocess.run([sys.executable, "-c", "from autograder import cgroups\n"
                           "cgroups.log.warning('cgroups: a warning nobody asked for')"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stderr == "", done.stderr


def test_verbose_in_one_process_is_said_once_and_not_after(tmp_path, monkeypatch, capsys):
    # Neither a subreaper nor a SIGTERM handler for this test process.
    monkeypatch.setattr(processes, "become_subreaper", lambda: True)
    monkeypatch.setattr(cli.signal, "signal", lambda *args: None)
    notes = tmp_path / "notes.ipynb"
    notes.write_text("not a notebook\n")
    command = ["grade", str(notes), "--results", str(tmp_path / "r.json"), "--sandbox", "off"]
    shown = []
    for extra in (["-v"], ["-v"], []):
        assert cli.main(command + extra) == 0
        shown.append(_verbose_lines(capsys.readouterr().err))
    assert shown[0] == shown[1] and len(shown[0]) == len(set(shown[0])) > 0, shown
    assert shown[2] == []


def test_namespace_options_are_said_once(said, monkeypatch):
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    monkeypatch.setattr(isolation, "_bwrap_supports", lambda option: False)
    isolation._namespace_flags()
    isolation._namespace_flags()
    assert [r.getMessage() for r in said.records] == [
        "bubblewrap options: this bwrap has no --disable-userns (0.8 and later have it); only "
        "the seccomp filter refuses new user namespaces"]
    monkeypatch.setattr(isolation, "_bwrap_supports", lambda option: True)
    assert "--disable-userns" in isolation._namespace_flags()
    assert "--disable-userns, so notebook code cannot create" in said.records[-1].getMessage()


def test_seccomp_filter_loaded_or_not_and_why(said, monkeypatch):
    descriptor = isolation.seccomp_pipe()
    assert descriptor is not None
    os.close(descriptor)
    assert "seccomp: a filter of" in said.records[-1].getMessage()
    monkeypatch.setattr(seccomp, "program", lambda machine=None: None)
    assert isolation.seccomp_pipe() is None
    record = said.records[-1]
    assert record.levelno == logging.WARNING and "seccomp: no filter for this machine" in \
        record.getMessage()


def test_the_fallbacks_network_filter_is_said_with_what_it_refuses(said):
    try:
        program = seccomp.network_program()
    except seccomp.Unavailable as why:
        pytest.skip(f"no network filter here: {why}")
    descriptor = isolation.seccomp_pipe(isolated=False)
    assert descriptor is not None
    with os.fdopen(descriptor, "rb") as pipe:
        assert pipe.read() == program  # what the worker loads
    record = said.records[-1]
    assert record.levelno == logging.INFO
    assert record.getMessage() == (
        f"seccomp: without bubblewrap each notebook's process loads a filter of "
        f"{len(program) // 8} instructions built with libseccomp, for itself and every program "
        "it runs: no socket of any family (a connected local socketpair stays), no connect, no "
        "send to an address, no io_uring, ptrace, process_vm_* or pidfd_getfd, no System V IPC "
        "object or POSIX message queue, no new session, no sendmsg (no descriptor passed "
        "through a socket pair)")


@pytest.mark.parametrize("missing, why", [
    ("pyseccomp", "the Python package pyseccomp is not installed (requirements.txt)"),
    ("linux", "seccomp is Linux's, and this is Darwin"),
], ids=["pyseccomp", "macos"])
def test_without_the_network_filter_the_grader_warns_once_and_says_why(said, monkeypatch,
                                                                       missing, why):
    monkeypatch.setattr(seccomp, "_network_program", seccomp._network_program.__wrapped__)
    if missing == "pyseccomp":
        monkeypatch.setitem(sys.modules, "pyseccomp", None)  # its import fails
    else:
        monkeypatch.setattr(sys, "platform", "darwin")
        monkeypatch.setattr(seccomp.platform, "system", lambda: "Darwin")
    monkeypatch.setattr(isolation, "landlock_abi", lambda: 0)
    for _ in range(3):
        assert isolation.seccomp_pipe(isolated=False) is None  # the worker gets no filter
    warnings = [r.getMessage() for r in said.records if r.levelno == logging.WARNING]
    assert warnings == [f"seccomp: no network filter without bubblewrap ({why}), so UDP and "
                        "unix sockets bound to a path stay open to notebook code and the "
                        "programs it runs, and so does TCP"]


def _fake_cgroups(root: Path, v2_controllers: str | None, v1: tuple[str, ...] = ()) -> None:
    root.mkdir()
    if v2_controllers is not None:
        (root / "cgroup.subtree_control").write_text(v2_controllers + "\n")
    for name in v1:
        (root / name).mkdir()
        (root / name / "cgroup.procs").write_text("")


@pytest.mark.parametrize("layout, expected", [
    ((None, ("memory", "pids")), "cgroups: v1, a group per notebook in the memory, pids "
                                 "hierarchies"),
    (("cpu memory pids", ()), "controllers enabled: cpu memory pids; each notebook's group sets "
                              "memory.max, memory.swap.max, pids.max, cpu.max, cpu.weight"),
    (("cpu", ()), "cgroups: none usable"),
], ids=["v1", "v2", "none"])
def test_cgroup_setup_is_said(said, monkeypatch, tmp_path, layout, expected):
    root = tmp_path / "cgroup"
    _fake_cgroups(root, *layout)
    monkeypatch.setattr(cgroups, "CGROUP_ROOT", root)
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    cgroups.Cgroup(2**30, 64)
    assert any(expected in record.getMessage() for record in said.records), said.text


def test_a_cgroup_error_is_logged_not_swallowed(said, monkeypatch, tmp_path):
    root = tmp_path / "cgroup"
    _fake_cgroups(root, "memory pids")

    def refuse(self, folder, limits):
        raise PermissionError(13, "Permission denied", str(folder))

    monkeypatch.setattr(cgroups, "CGROUP_ROOT", root)
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    monkeypatch.setattr(cgroups.Cgroup, "_make", refuse)
    for _ in range(3):
        assert cgroups.Cgroup(2**30, 64).folders == []
    warnings = [r.getMessage() for r in said.records if r.levelno == logging.WARNING]
    assert warnings == [f"cgroups: a control group could not be set up in {root} "
                        "(PermissionError: Permission denied); notebooks graded without one "
                        "get only the per-process rlimits"]


def test_a_cgroup_that_cannot_be_removed_is_logged(said, monkeypatch, tmp_path):
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    group = cgroups.Cgroup(2**30, 64)
    assert "cgroups: not root" in said.records[-1].getMessage()
    stuck = tmp_path / "autograder-stuck"
    stuck.mkdir()
    (stuck / "cgroup.procs").write_text("")  # a folder that is not empty cannot be removed
    group.folders = [stuck]
    group.remove()
    assert said.records[-1].levelno == logging.WARNING
    assert f"cgroups: {stuck} could not be removed" in said.records[-1].getMessage()
