"""The worker protocol, as types: what the grader sends into the sandbox and what comes back.

One job goes in as a JSON document on the worker's standard input; events come out as JSON
lines on the results descriptor (see `worker.py`). Inside the sandbox, the notebook's
processes send records to the relay, which checks them against the job before anything
becomes an event. Everything here is plain data (see `plain.py`); the types are checked by
mypy in `make lint` and cost nothing at run time (the worker imports this module only for
the type checker).
"""

from __future__ import annotations

from typing import Any, Literal, TypedDict

# {"value": plain}, {"raised": ...}, {"missing": ...}, {"timeout": seconds}, ...
Outcome = dict[str, Any]
ErrorDescription = dict[str, Any]  # {"raised": name, "mro": [names], "message": text}


class Cell(TypedDict):
    label: str  # "cell 3 (answer_parse_cron_field)": the grader's own words, never the notebook's
    source: str


class _CaseRequired(TypedDict):
    id: str
    probe: str  # "call" or "suite.name", a probe of sandbox/probes/


class Case(_CaseRequired, total=False):
    target: str | None  # the function a "call" probe calls
    args: list[Any]  # plain data
    kwargs: dict[str, Any]
    timeout: float  # CPU seconds for this case


class Job(TypedDict, total=False):
    prelude: list[str]  # trusted setup cells from solutions/
    cells: list[Cell]  # the student's code, in notebook order
    cases: list[Case]
    cell_timeout: float  # CPU seconds per cell
    cpu_budget: float  # CPU seconds for the whole notebook
    # Folders notebook code may not open or list (the course's, where solutions/ and the
    # class's work live), except those in `allowed` (the sandbox's code, data/); without
    # bubblewrap they are on the same file system as the notebook (guard.install).
    private: list[str]
    allowed: list[str]
    # processes (and threads) the sandbox may hold at once; where its uid is shared, a fork that
    # fails while it holds fewer is the grader's failure (worker._short_of_processes)
    processes: int


# -- events: worker -> grader (one JSON line each) -----------------------------------------

class CellEvent(TypedDict):
    event: Literal["cell"]
    label: str
    error: ErrorDescription


class CaseEvent(TypedDict):
    event: Literal["case"]
    id: str
    outcome: Outcome


class FlagEvent(TypedDict):
    event: Literal["flag"]
    text: str  # tampering the worker noticed


class StoppedEvent(TypedDict):
    event: Literal["stopped"]
    why: Literal["cpu"]  # the notebook's CPU budget ran out


class DoneEvent(TypedDict):
    event: Literal["done"]


class ForkFailedEvent(TypedDict):
    # The grader could not start a process for the notebook (EAGAIN or ENOMEM): the relay's own
    # fork of the notebook's process, before any notebook code ran ("notebook"), or, said by
    # the notebook's process where the uid is shared, a fork for the tests ("tests")
    event: Literal["fork_failed"]
    step: Literal["notebook", "tests"]
    errno: str  # "EAGAIN" or "ENOMEM"


Event = CellEvent | CaseEvent | FlagEvent | StoppedEvent | DoneEvent | ForkFailedEvent


# -- records: the notebook's processes -> the relay (never trusted as they come) -----------

class CellRecord(TypedDict):
    cell: int  # index among the setup cells and then the student's cells
    error: ErrorDescription


class CaseRecord(TypedDict):
    case: str
    outcome: Outcome


class EndedRecord(TypedDict):
    ended: str  # a case whose process ended before it answered
    status: int | str  # exit status, -signal, or "timeout"
    cpu: float


class FlagRecord(TypedDict):
    flag: str


class StoppedRecord(TypedDict):
    stopped: Literal["cpu"]


class _TestsBegin(TypedDict):
    tests: Literal["begin"]  # sent once, after the cells: outcomes count only after it


class TestsRecord(_TestsBegin, total=False):
    # the process running the tests when it is not the notebook's (which left the cells'
    # threads behind, stopped): the relay waits for its end
    process: int


class ForkFailedRecord(TypedDict):
    fork_failed: str  # "EAGAIN" or "ENOMEM", once, where the uid is shared: no process for tests


Record = (CellRecord | CaseRecord | EndedRecord | FlagRecord | StoppedRecord | TestsRecord
          | ForkFailedRecord)
