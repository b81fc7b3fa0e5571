"""Probes for run_order (notebook 04): what a call leaves behind in the dictionary it was given."""

from __future__ import annotations

from . import lookup, probe

TYPE_CHECKING = False  # no import of typing in the sandbox at run time
if TYPE_CHECKING:
    from typing import Any


@probe("run_order.input_after_call")
def input_after_call(namespace: dict, tasks: dict[str, list[str]],
                     must_reject: bool = False) -> dict[str, Any]:
    """Call run_order on a fresh dictionary of fresh lists; observe the input afterwards
    (first, so that a failure message shows it before it is cut short).

    For a graph run_order must reject (`must_reject`: a cycle, an unknown dependency) only the
    input is observed, whatever the call did: returning instead of raising, or raising another
    class than ValueError, is what the rejection cases judge, not these. An untouched stub's
    NotImplementedError still propagates and fails the case.

    For a valid graph, also observed: which jobs came back (sorted, so that these cases judge
    the input, not the tie-break), or that a ValueError was raised, so that an answer that
    does nothing (`return []`, or only raising) does not earn them. Any other exception
    propagates and fails the case; an answer that is not a list of the jobs fails it too.
    """
    run_order = lookup(namespace, "run_order")
    given = {job: list(dependencies) for job, dependencies in tasks.items()}
    if must_reject:
        try:
            run_order(given)
        except NotImplementedError:
            raise
        except Exception:  # noqa: S110 (what the call did is the rejection cases' business)
            pass
        return {"input after the call": given}
    try:
        returned: Any = sorted(run_order(given))
    except ValueError:
        returned = "raised ValueError"
    return {"input after the call": given, "jobs returned": returned}

