"""Hidden tests for append_if_new (notebook 06, 25 points).

Every case runs a probe from `autograder/sandbox/probes/append_if_new.py`, which reports the
return values (a bool must stay a bool), the ledger afterwards, and by identity where each of
its elements came from; the reference solution's report is the expected one.
"""

from autograder.sandbox import plain
from autograder.suite import Case

F = "append_if_new"


def _text(value: object) -> str:
    return plain.show(plain.to_plain(value), 160)


def _step(entry: dict, key: str | None, how: str) -> dict:
    if how == "default":
        return {"entry": entry, "how": how}
    return {"entry": entry, "key": key, "how": how}


def _call_text(step: dict, steps: list[dict]) -> str:
    if "again" in step:
        entry = f"<the same dict object as call {step['again'] + 1}>"
    else:
        entry = _text(step["entry"])
    key = {"default": "", "positional": f", {step.get('key')!r}",
           "keyword": f", key={step.get('key')!r}"}[step["how"]]
    return f"{F}(ledger, {entry}{key})"


def calls(name: str, ledger: list[dict], entries: list, *, observe: tuple[str, ...],
          key: str | None = None, how: str | None = None, weight: float = 1.0,
          steps: list[dict] | None = None, rule: str) -> Case:
    """A case that runs `append_if_new(ledger, entry[, key])` for each entry in turn.

    `observe` picks what the case compares, so that one bug costs only the cases about it:
    "returned" (the return values, type-strict), "contents" (the ledger's length and
    contents), "objects" (by identity, where each element of the ledger came from).
    `how` is "default" (no key argument), "positional" or "keyword"; by default "keyword" when
    a key is given. Explicit `steps` (see the probe) allow mixing keys and repeating objects.
    """
    how = how or ("default" if key is None else "keyword")
    steps = steps if steps is not None else [_step(entry, key, how) for entry in entries]
    shown = "; ".join(_call_text(step, steps) for step in steps)
    return Case(name=name, probe=f"{F}.calls", args=(ledger, steps, observe), weight=weight,
                shows=f"ledger = {_text(ledger)}; {shown}", rule=rule)


def returns(name: str, ledger: list[dict], entries: list, **options) -> Case:
    return calls(name, ledger, entries, observe=("returned",), **options)


def contents(name: str, ledger: list[dict], entries: list, **options) -> Case:
    return calls(name, ledger, entries, observe=("contents",), **options)


def objects(name: str, ledger: list[dict], entries: list, **options) -> Case:
    return calls(name, ledger, entries, observe=("objects",), **options)


def missing_key(name: str, ledger: list[dict], good: dict, bad: dict, *, key: str | None = None,
                how: str | None = None, weight: float = 1.0, rule: str,
                names_key: bool = False) -> Case:
    """Append `good`, then an entry without the key, which must raise ValueError (whose message
    must name the key, with `names_key`). Only the second call is observed, and the case is a
    rejection: it earns its points only next to correct work (scoring.REJECTION_GATE)."""
    how = how or ("default" if key is None else "keyword")
    shown = "; ".join(_call_text(_step(entry, key, how), []) for entry in (good, bad))
    return Case(name=name, probe=f"{F}.missing_key", args=(ledger, good, bad, key, how),
                kwargs={"names_key": True} if names_key else {}, weight=weight,
                shows=f"ledger = {_text(ledger)}; {shown}", rule=rule, rejection=True)


def many(name: str, size: int, deliveries: int, seed: int, weight: float = 1.0, *,
         rule: str) -> Case:
    return Case(name=name, probe=f"{F}.many", args=(size, deliveries, seed), weight=weight,
                timeout=10.0, rule=rule,
                shows=(f"a ledger of {size:,} entries with ids 'run-000000' ..., then "
                       f"{deliveries} deliveries (repeats and new ids, seed {seed})"))


# The rules of the exercise section, word for word.
NEW = "**New identifier:** append the very `entry` object to `ledger` itself"
IN_PLACE = "in place: the caller's list grows; do not build a new list, do not copy the entry"
DUPLICATE = "**Identifier already there:** return `False` and leave the ledger exactly as it was"
FIRST_WINS = "Do not replace or update the existing entry; the first delivery wins."
ONLY_ID = ("Only the identifier counts: a retry with a different `attempt` or `qty` is still a "
           "duplicate, and an entry that differs only in its identifier is new.")
EQUAL = ("Identifiers are compared with `==`, so `1`, `1.0` and `True` are one identifier (Python "
         "says `1 == 1.0 == True`), while `1` and `\"1\"` are two")
ANY_VALUE = ("An identifier can be any value a dictionary key can be, including `None`, `0`, "
             "`\"\"` and a tuple")
NAN = ("A NaN (`float(\"nan\")`, what a missing number becomes when pandas reads a CSV file) "
       "equals nothing, not even another NaN, so an entry whose identifier is NaN matches no "
       "entry: append it and return `True`.")
NO_KEY = "An existing ledger entry that has no `key` field at all never matches"
KEY = ("`key` names the identifier field (`\"id\"` unless given); it may be passed by position "
       "or by name.")
MISSING = "An `entry` without the `key` field raises `ValueError` with a message that names the key"
BOOL = "Return a real `bool`: `True` or `False`, not `1`, `0` or `None`."

R1 = {"id": "run-0930", "qty": 100, "attempt": 1}
R2 = {"id": "run-0935", "qty": -40, "attempt": 1}
R3 = {"id": "run-0940", "qty": 25, "attempt": 1}
RETRY_R1 = {"id": "run-0930", "qty": 100, "attempt": 2}
LONG = [{"id": f"run-{minute:04d}", "qty": minute % 7} for minute in range(900, 960, 5)]

CASES = [
    # what ends up in the ledger
    contents("a new id is appended at the end, after the entries already there",
             [R1, R2], [R3, dict(R1)], weight=1.5, rule=NEW),
    contents("the append is in place: the caller's own ledger list holds the new entries",
             [R1], [R2, R3], weight=2, rule=IN_PLACE),
    contents("a retry of a recorded run leaves the ledger as it was", [R1, R2], [RETRY_R1, R3],
             weight=2, rule=DUPLICATE),
    contents("a repeat with other fields changed is still a duplicate, and the existing entry "
             "keeps its contents", [R1, R2],
             [{"id": "run-0930", "qty": 250, "attempt": 3, "note": "replayed after restart"}, R3],
             weight=2.5, rule=FIRST_WINS),
    contents("an exact copy of an existing entry is a duplicate", [R1, R2], [dict(R2), R3],
             rule=DUPLICATE),
    contents("an entry that equals an existing one in every field but the id is new",
             [R1], [{"id": "run-0931", "qty": 100, "attempt": 1}, dict(R1)], rule=ONLY_ID),
    contents("a duplicate of the first entry of a long ledger is found, not just the last one",
             LONG, [dict(LONG[0]), dict(LONG[5]), {"id": "run-0960", "qty": 1}], weight=2,
             rule=DUPLICATE),
    contents("a day of deliveries with retries records each run once, in first-delivery order",
             [], [{"id": f"run-{m:04d}", "attempt": a} for m, a in
                  [(930, 1), (935, 1), (935, 2), (940, 1), (930, 2), (945, 1), (940, 2),
                   (935, 3), (950, 1)]], weight=2, rule=DUPLICATE),
    contents("ids are compared by value (==), not by object identity (is)",
             [{"id": "trade-20240301-000123", "qty": 5}, {"id": 10**20, "qty": 6}],
             [{"id": "trade-20240301-000123", "qty": 5}, {"id": 10**20, "qty": 6},
              {"id": "trade-20240301-000124", "qty": 9}], weight=1.5, rule=EQUAL),
    # the key argument
    contents("the key argument is honoured when passed by name", [{"id": 1, "run_id": "a"}],
             [{"id": 1, "run_id": "b"}, {"id": 2, "run_id": "a"}], key="run_id", weight=2,
             rule=KEY),
    contents("the key argument is honoured when passed by position",
             [{"id": 1, "run_id": "a"}], [{"id": 1, "run_id": "b"}, {"id": 2, "run_id": "b"}],
             key="run_id", how="positional", weight=1.5, rule=KEY),
    contents("without a key argument, 'id' is the key", [{"id": 5, "run_id": "x"}],
             [{"id": 5, "run_id": "y"}, {"id": 6, "run_id": "x"}], weight=1.5, rule=KEY),
    contents("different keys on the same ledger each compare their own field",
             [{"id": 1, "order": "A"}], [], steps=[
                 _step({"id": 2, "order": "A"}, "id", "keyword"),
                 _step({"id": 3, "order": "A"}, "order", "keyword"),
                 _step({"id": 1, "order": "B"}, "order", "positional"),
                 _step({"id": 1, "order": "C"}, "id", "positional")], weight=1.5, rule=KEY),
    # unusual identifiers
    contents("None is an identifier: a second None is a duplicate", [R1],
             [{"id": None, "n": 1}, {"id": None, "n": 1}], weight=1.5, rule=ANY_VALUE),
    contents("0 and an empty string are identifiers like any other", [],
             [{"id": 0}, {"id": ""}, {"id": 0}, {"id": ""}], weight=1.5, rule=ANY_VALUE),
    contents("1 and '1' are different identifiers", [],
             [{"id": 1}, {"id": "1"}, {"id": 1}, {"id": "1"}], weight=1.5, rule=EQUAL),
    contents("a tuple (job, scheduled time) can be the identifier", [],
             [{"id": ("book_fills", "2024-03-01T09:30")},
              {"id": ("book_fills", "2024-03-01T09:35")},
              {"id": ("book_fills", "2024-03-01T09:30")}], rule=ANY_VALUE),
    contents("a NaN identifier matches nothing, not even another NaN: each entry whose id is NaN "
             "is appended", [R1, {"id": float("nan"), "qty": 1}],
             [{"id": float("nan"), "qty": 1}, {"id": float("nan"), "qty": 2}], rule=NAN),
    contents("an existing entry without the key never matches, not even an entry whose id is "
             "None", [{"note": "booked by hand"}, {"id": "run-0930"}],
             [{"id": None}, {"id": "run-0930"}, {"id": None}],
             weight=1.5, rule=NO_KEY),
    # the return value
    returns("returns True (a real bool) when it appends and False for a duplicate, "
            "not 1, 0 or None", [], [R1, RETRY_R1, R2], weight=2.5, rule=BOOL),
    returns("returns False, not None, for a duplicate of an older entry", LONG,
            [{"id": "run-0900", "qty": 1}, {"id": "run-0960", "qty": 1}], weight=2, rule=BOOL),
    returns("with a key argument the answers are real bools too", [{"id": 1, "run_id": "a"}],
            [{"id": 1, "run_id": "b"}, {"id": 2, "run_id": "a"}], key="run_id", weight=1.5,
            rule=BOOL),
    # which objects are in the ledger
    objects("the appended element is the entry object itself, not a copy", [],
            [R1, R2, RETRY_R1], weight=1.5, rule=NEW),
    objects("a duplicate leaves the existing entry in place as the very same object",
            [R1, R2], [dict(R1), R3], weight=2, rule=DUPLICATE),
    objects("the same entry object delivered twice is recorded once", [], [],
            steps=[_step(R1, None, "default"), {"again": 0, "how": "default"},
                   _step(R2, None, "default")], weight=1.5, rule=DUPLICATE),
    # entries without the key
    missing_key("an entry without the key raises ValueError (not KeyError)",
                [R1], R2, {"qty": 5}, weight=2, rule=MISSING),
    missing_key("an entry without the named key raises ValueError, even if it has an 'id'",
                [{"id": 1, "run_id": "a"}], {"id": 2, "run_id": "b"}, {"id": 3}, key="run_id",
                weight=1.5, rule=MISSING),
    missing_key("an empty entry raises ValueError", [], R1, {}, weight=1, rule=MISSING),
    missing_key("an entry without the key raises ValueError even when the ledger holds an entry "
                "whose id is None", [{"id": None, "qty": 3}], R1, {"qty": 5}, weight=1,
                rule=MISSING),
    returns("1, 1.0 and True are one identifier, compared with ==", [],
            [{"id": 1}, {"id": 1.0}, {"id": True}, {"id": "1"}], weight=1.5, rule=EQUAL),
    missing_key("the ValueError for an entry without the key names the key",
                [{"run_id": "a"}], {"run_id": "b"}, {"id": 3}, key="run_id", how="positional",
                weight=1, rule=MISSING, names_key=True),
    # everything at once, at size
    many("a ledger of 5,000 entries: old and new repeats refused, new ids appended, "
         "the answers real bools", 5000, 120, seed=6, weight=2, rule=DUPLICATE),
]
