"""Run notebook code and hidden-test probes with a time limit per step.

Shared by the sandbox worker and by the grade cells under nbgrader, so that a case that runs
out of time, raises, or is missing a function gets the same outcome on both paths.
"""

from __future__ import annotations

try:  # the C module behind `signal`, which would import enum, functools and collections
    import _signal as signal
except ImportError:  # pragma: no cover (CPython always has _signal)
    import signal  # type: ignore[no-redef]
from time import process_time  # bound before notebook code can replace time.process_time

from .backstop import Backstop, queued_seconds
from .probes import MissingFunction, describe_error, run_probe

TYPE_CHECKING = False  # no import of typing in the sandbox at run time

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from typing import Any

    from .protocol import Case, Cell, Outcome


class StepTimeout(BaseException):
    """A step of notebook code ran past its time limit."""


class StepWaited(StepTimeout):
    """A step of notebook code was stopped by its wall clock before it used its CPU time: it
    waited (slept, blocked) past its backstop, or was kept from computing up to the ceiling.
    Its one argument: the wall-clock seconds it ran."""


def _on_alarm(signum: int, frame: Any) -> None:
    raise StepTimeout()


# A step that waits instead of computing (a sleep, a lock that never opens) is stopped by the
# wall clock after this many times its CPU-time budget, plus WALL_SLACK seconds; one that is
# still computing then gets more time (backstop.Backstop).
WALL_FACTOR = 4.0
WALL_SLACK = 10.0


def wall_backstop(seconds: float) -> float:
    """Wall-clock seconds after which a step with a CPU budget of `seconds` is first asked
    whether it is still computing."""
    return seconds * WALL_FACTOR + WALL_SLACK


class time_limit:
    """Raise StepTimeout in the main thread after `seconds` of CPU time of this process (all
    its threads), or when it waits past a generous wall-clock backstop, whichever comes first.

    CPU time, not wall-clock time: a machine busy with other work slows a step down but does
    not change its verdict."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds

    def _on_wall_clock(self, signum: int, frame: Any) -> None:
        if self.backstop.passed():
            raise StepWaited(self.backstop.elapsed())
        signal.setitimer(signal.ITIMER_REAL, max(self.backstop.left(), 0.01))

    def __enter__(self) -> time_limit:
        self.backstop = Backstop(wall_backstop(self.seconds), process_time,
                                 queued=lambda: queued_seconds("self"))
        self.previous = (signal.signal(signal.SIGPROF, _on_alarm),
                         signal.signal(signal.SIGALRM, self._on_wall_clock))
        signal.setitimer(signal.ITIMER_PROF, self.seconds)
        signal.setitimer(signal.ITIMER_REAL, self.backstop.seconds)
        return self

    def __exit__(self, *exc: object) -> None:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGPROF, self.previous[0])
        signal.signal(signal.SIGALRM, self.previous[1])


def run_case(namespace: dict, case: Case,
             check: Callable[[], str | None] | None = None) -> Outcome:
    """Outcome of one hidden case: {"value": ...}, an error, {"missing": ...}, {"timeout": s} or
    {"tampered": what} (see run_probe's `check`)."""
    seconds = float(case.get("timeout", 5.0))
    try:
        with time_limit(seconds):
            return run_probe(namespace, case["probe"], case.get("target"),
                             case.get("args", []), case.get("kwargs", {}), check)
    except StepTimeout:
        return {"timeout": seconds}
    except MissingFunction as missing:
        return {"missing": str(missing)}
    except BaseException as error:  # SystemExit and KeyboardInterrupt are answers too
        return describe_error(error)


def to_python(source: str) -> str:
    """Turn IPython syntax (magics, !shell) into plain Python, as a kernel would. Costly for
    long cells (IPython's transformer grows faster than the number of magics), so it runs here,
    in the sandbox under the cell's time limit, never in the grader."""
    from IPython.core.inputtransformer2 import TransformerManager

    try:
        return TransformerManager().transform_cell(source)
    except Exception:
        return source


def _compile(source: str, label: str, ipython: bool):
    try:
        return compile(source, f"<{label}>", "exec", dont_inherit=True)
    except SyntaxError:
        if not ipython:
            raise
    # Only a cell that is not Python as written can hold IPython syntax.
    return compile(to_python(source), f"<{label}>", "exec", dont_inherit=True)


def run_cell(namespace: dict, source: str, label: str, seconds: float,
             ipython: bool = False) -> dict | None:
    """Execute one cell of notebook code (first turning IPython syntax into Python when
    `ipython`); return a plain error description, or None. Compiling counts against the
    cell's time limit too."""
    try:
        with time_limit(seconds):
            try:
                code = _compile(source, label, ipython)
            except SyntaxError as error:
                return {"raised": "SyntaxError", "mro": ["SyntaxError"],
                        "message": f"line {error.lineno}: {error.msg}"}
            exec(code, namespace)
    except StepWaited as waited:  # not "ran longer than its CPU time": it did not use it
        return {"timeout": seconds, "waited": round(waited.args[0], 1)}
    except StepTimeout:
        return {"timeout": seconds}
    except BaseException as error:
        return describe_error(error)
    return None


def run_notebook_code(namespace: dict, prelude: list[str], cells: list[Cell],
                      seconds: float) -> Iterator[tuple[str, dict]]:
    """Run the trusted setup cells, then the student's cells (as written in the notebook,
    IPython syntax included), in order; yield (label, error) for every cell that raised or
    ran too long, as soon as it did."""
    labelled = [(f"setup cell {index + 1}", source, False)
                for index, source in enumerate(prelude)]
    labelled += [(cell["label"], cell["source"], True) for cell in cells]
    for label, source, ipython in labelled:
        error = run_cell(namespace, source, label, seconds, ipython)
        if error:
            yield label, error
