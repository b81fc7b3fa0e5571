"""Probes: how one hidden test case exercises a namespace and what it observes.

A probe takes the namespace a notebook's code defined (a student's, or the reference
solution's) and plain arguments, and returns plain data. The grader runs the same probe on
both namespaces and compares what came back; the probe itself never decides a score.

`call` covers most cases: it calls one function and returns its result. Exercises with
state (an in-place append, a database, threads) register their own probes with the
`@probe("suite.name")` decorator in the module of this package named after the suite, so
that a worker loads only the modules its cases name (`load`); the grader's own process loads
them all (`load_all`). Modules whose names start with an underscore hold what several
suites' probes share.

A probe reads nothing at run time from data of the standard library that notebook code could
change without the guard noticing (re's cache of patterns, json's default decoder, tempfile's
folder and name sequence): such data changes honestly, so the guard leaves it alone. Compile
patterns, build decoders and choose folders when the module loads.
"""

from __future__ import annotations

import copy

from .. import plain

TYPE_CHECKING = False  # no import of typing in the sandbox at run time

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from typing import Any

    Probe = Callable[..., Any]
PROBES: dict[str, Probe] = {}


class MissingFunction(Exception):
    """The notebook does not define a name a test needs."""


def probe(name: str) -> Callable[[Probe], Probe]:
    def register(function: Probe) -> Probe:
        PROBES[name] = function
        return function

    return register


def lookup(namespace: dict, name: str) -> Any:
    if name not in namespace:
        raise MissingFunction(
            f"{name} is not defined: run the cell that defines it, and keep its name as given")
    return namespace[name]


@probe("call")
def call(namespace: dict, target: str, *args: Any, **kwargs: Any) -> Any:
    """Call `target(*args, **kwargs)` on private copies of the arguments; return its result."""
    function = lookup(namespace, target)
    return function(*copy.deepcopy(args), **copy.deepcopy(kwargs))


def module_of(name: str) -> str | None:
    """The module of this package that registers probe `name` ("suite.what" -> "suite")."""
    suite, dot, _ = name.partition(".")
    return suite if dot and suite.isidentifier() and not suite.startswith("_") else None


def load(names: Iterable[str]) -> None:
    """Import the modules that register the probes `names` (the worker calls this before any
    notebook code runs, so the guard's snapshot covers them)."""
    modules = {module_of(name) for name in names}
    for module in sorted(module for module in modules if module is not None):
        # The import statement's own function: importlib (with warnings) would cost a sandbox
        # a twentieth of its imports.
        __import__(f"{__name__}.{module}")


def load_all() -> None:
    """Import every probe module (the grader's process: to check suites and fingerprint)."""
    import importlib
    import pkgutil

    for module in pkgutil.iter_modules(__path__):
        importlib.import_module(f"{__name__}.{module.name}")


def describe_error(error: BaseException) -> dict:
    """Plain description of an exception raised by notebook code."""
    kind = type(error)
    try:
        message = str(error)
    except BaseException:  # a hostile __str__ is still a description
        message = "<message could not be read>"
    return {
        "raised": kind.__name__,
        "mro": [cls.__name__ for cls in kind.__mro__],
        "message": message[:2000],
    }


def run_probe(namespace: dict, name: str, target: str | None, args: list, kwargs: dict,
              check: Callable[[], str | None] | None = None) -> dict:
    """Run one probe and return its outcome: {"value": plain} or an error description.

    `check` (the case server's) puts back what the code under test rebound and says what,
    after the probe and before its observation is turned into plain data: a stand-in that
    puts itself back when first called (the plain-data codec's, a builtin's) is caught while
    it still stands in, and the outcome is then {"tampered": what}."""
    function = PROBES[name]
    real_args = [plain.from_plain(a) for a in args]
    real_kwargs = {k: plain.from_plain(v) for k, v in kwargs.items()}
    if target is not None:
        real_args.insert(0, target)
    result = function(namespace, *real_args, **real_kwargs)
    changed = check() if check is not None else None
    if changed:
        return {"tampered": changed}
    return {"value": plain.to_plain(result)}
