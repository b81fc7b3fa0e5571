"""Hidden tests for the runs table: create_runs_table, acquire_run, finish_run (notebook 07)."""

from autograder.suite import Case

FIRST = ("acquire", "a", 0, 300.0, "worker-1")
TABLES = ("tables",)

# The rules of the exercise section (Part 2), word for word.
UNIQUE = "`run_key` **UNIQUE**"
STARTED = ("insert `runs` (RUNNING, attempt 1, `lease_expires_at = now + lease_seconds`, "
           "`created_at = updated_at = now`) and `attempts` (1, `'RUNNING'`, `'first'`), in one "
           "transaction")
SKIPPED = "| SUCCEEDED | `\"skipped\"` | nothing | the row's |"
DUPLICATE = "| RUNNING, `now < lease_expires_at` | `\"duplicate\"` | nothing | the row's |"
RECOVERED = ("the old attempt's outcome becomes `'EXPIRED'`; insert the new attempt with note "
             "`'recovered'`")
RESUME = "the new attempt, the row's `raw_hash` (resume from the same input)"
EXPIRED = "| RUNNING, `now >= lease_expires_at` | `\"recovered\"` |"
HOLDS = "**only if** that attempt still holds the run"
RETRIED = ("as for recovered (so the run is RUNNING again), but `raw_hash` and `error` are cleared "
           "(a fresh fetch), the failed attempt keeps outcome `'FAILED'`, and the note is "
           "`'retried'`")
STATES = "A `state` other than `\"SUCCEEDED\"` or `\"FAILED\"` is a `ValueError`."
IN_UTC = "store every time with `utc_text`"
DATABASE = "the database, not a check in Python, decides who is first"
RUNS_NOT_NULL = "all but `raw_hash` and `error` are `NOT NULL`"
ATTEMPTS_NOT_NULL = "**UNIQUE (run_key, attempt)**; all `NOT NULL`"
UPDATED_AT = ("**`updated_at`** is the `now` of the last `acquire_run` or `finish_run` that "
              "changed the run's row")


def not_null(name: str, table: str, columns: tuple, weight: float, rule: str) -> Case:
    return Case(name=name, probe="runs_table.not_null", args=(table, columns), weight=weight,
                shows=f"create_runs_table(db), then PRAGMA table_info({table})", rule=rule)


def script(name: str, steps: list, weight: float, shows: str, rule: str) -> Case:
    return Case(name=name, probe="runs_table.script", args=(steps,), weight=weight, shows=shows,
                rule=rule)


CASES = [
    Case(name="the schema: UNIQUE run_key, states limited to RUNNING/SUCCEEDED/FAILED, "
              "UNIQUE (run_key, attempt)", probe="runs_table.constraints", weight=3,
         shows="inserting rows straight into runs and attempts", rule=UNIQUE),
    script("a new run is recorded as RUNNING, attempt 1, with its lease, before any work",
           [FIRST, TABLES], 2, "acquire_run(db, 'a', now, 300, 'worker-1') on an empty table",
           STARTED),
    script("two different runs do not block each other",
           [FIRST, ("acquire", "b", 1, 300.0, "worker-2"), TABLES], 1,
           "acquire_run for run 'a', then for run 'b'", STARTED),
    script("a SUCCEEDED run is skipped and left as it was",
           [FIRST, ("finish", "a", 1, "SUCCEEDED", 30, None),
            ("acquire", "a", 100, 300.0, "worker-2"), TABLES], 2,
           "acquire, finish SUCCEEDED, acquire again 100 s later", SKIPPED),
    script("a RUNNING run whose lease is still live is a duplicate",
           [FIRST, ("acquire", "a", 120, 300.0, "worker-2"), TABLES], 2,
           "acquire, then a second worker acquires 120 s later (lease 300 s)", DUPLICATE),
    script("a RUNNING run whose lease expired is recovered as attempt 2 with the same raw hash",
           [FIRST, ("raw", "a", "raw #1"), ("acquire", "a", 600, 300.0, "worker-2")], 3,
           "acquire, the job stores raw #1, the worker dies; a second worker acquires at 600 s",
           RESUME),
    script("after a recovery the first attempt is kept (EXPIRED) and the recovery is recorded",
           [FIRST, ("raw", "a", "raw #1"), ("acquire", "a", 600, 300.0, "worker-2"), TABLES],
           3, "the runs and attempts rows after a recovery at 600 s", RECOVERED),
    script("a lease expires at exactly lease_expires_at, not a moment before",
           [FIRST, ("acquire", "a", 299.5, 300.0, "worker-2"),
            ("acquire", "a", 300, 300.0, "worker-3")], 1,
           "acquire at 0 s (lease 300 s), then at 299.5 s and at 300 s", EXPIRED),
    script("only the attempt that holds the run can finish it",
           [FIRST, ("acquire", "a", 600, 300.0, "worker-2"),
            ("finish", "a", 1, "SUCCEEDED", 610, None), ("finish", "a", 2, "SUCCEEDED", 620, None),
            TABLES], 2, "recovery at 600 s, then finish attempt 1, then finish attempt 2",
           HOLDS),
    script("a FAILED run stores its error category and is retried as a new attempt",
           [FIRST, ("raw", "a", "raw #1"), ("finish", "a", 1, "FAILED", 10, "validation"), TABLES,
            ("acquire", "a", 3600, 300.0, "worker-1"), TABLES], 2,
           "finish FAILED 'validation', then acquire again an hour later", RETRIED),
    script("finish_run accepts only SUCCEEDED or FAILED",
           [FIRST, ("finish", "a", 1, "DONE", 10, None), TABLES], 1,
           "finish_run(db, 'a', 1, 'DONE', ...)", STATES),
    script("times are stored in UTC even when `now` is given in Karachi time",
           [("acquire_karachi", "a", 0, 300.0, "worker-1"), TABLES], 1,
           "acquire_run with now = 11:05 Asia/Karachi", IN_UTC),
    Case(name="two workers acquiring one new run at the same moment: exactly one starts",
         probe="runs_table.race", args=(2,), weight=3, timeout=10,
         shows=("2 triggers, each in a process of its own, call acquire_run for the same new "
                "run at once"), rule=DATABASE),
    Case(name="four workers at the same moment: one starts, three are duplicates",
         probe="runs_table.race", args=(4,), weight=1, timeout=10,
         shows=("4 triggers, each in a process of its own, call acquire_run for the same new "
                "run at once"), rule=DATABASE),
    not_null("runs: every column but raw_hash and error is declared NOT NULL", "runs",
             ("run_key", "state", "attempt", "owner", "lease_expires_at", "created_at",
              "updated_at"), 1, RUNS_NOT_NULL),
    not_null("attempts: every column is declared NOT NULL", "attempts",
             ("run_key", "attempt", "owner", "started_at", "outcome", "note"), 0.5,
             ATTEMPTS_NOT_NULL),
    Case(name="updated_at is the now of the last acquire_run or finish_run that changed the "
              "row, and stays as it was when a call changes nothing",
         probe="runs_table.updated_at",
         args=([("acquire", 0, "worker-1"), ("acquire", 120, "worker-2"),
                ("acquire", 600, "worker-2"), ("finish", 1, "SUCCEEDED", 610, None),
                ("finish", 2, "FAILED", 620, "transient"), ("acquire", 3600, "worker-3"),
                ("finish", 3, "SUCCEEDED", 3610, None), ("acquire", 3700, "worker-1")],),
         weight=1, rule=UPDATED_AT,
         shows=("for one run (lease 300 s): acquire at 0 s, 120 s (a duplicate) and 600 s (a "
                "recovery); finish attempt 1 at 610 s (refused) and attempt 2 FAILED at 620 s; "
                "acquire at 3600 s (a retry); finish attempt 3 at 3610 s; acquire at 3700 s "
                "(skipped); updated_at read after each call")),
]
