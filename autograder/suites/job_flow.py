"""Hidden tests for run_job, the job flow (notebook 07, 5 points)."""

from autograder.suite import Case

RESULT = ["results", "runs"]
NEGATIVE = "a row with a negative price"


def flow(name: str, runs: list, observe: list, weight: float, shows: str) -> Case:
    return Case(name=name, probe="job_flow.scenario", args=(runs, observe), weight=weight,
                shows=shows)


CASES = [
    flow("a good run: SUCCEEDED, with its records, metrics, artifacts and their hashes",
         [{}], RESULT + ["rows", "files", "artifact hashes", "report says raw_hash"], 3,
         "run_job on good quotes"),
    flow("the steps are reported in order, ending with 'succeeded'",
         [{}], ["steps"], 1, "run_job on good quotes, watching on_step"),
    flow("every artifact is written while the run is still RUNNING (SUCCEEDED comes last)",
         [{}], ["states at artifact writes", "runs"], 2,
         "run_job on good quotes, reading the run's state as each artifact is written"),
    flow("a failed artifact write: FAILED 'artifact', and no half-published report is left",
         [{"fail_on": ["records"]}], RESULT + ["files", "states at artifact writes"], 3,
         "run_job when writing the records file fails"),
    flow("the same run a second time is SKIPPED: no fetch, no new rows",
         [{}, {"advance": 60}], ["results", "fetches", "rows", "attempts"], 2,
         "run_job twice for the same window"),
    flow("transient errors are retried after your backoff_delays, and the run succeeds",
         [{"script": ["reset", "hang"]}],
         ["results", "fetches", "pauses (s)", "clock (s after start)"], 3,
         "run_job when the first fetch is reset and the second hangs"),
    flow("retries stop after max_tries: FAILED 'transient', nothing published",
         [{"script": ["reset"] * 6, "settings": {"max_tries": 4}}],
         RESULT + ["fetches", "pauses (s)", "files"], 2,
         "run_job with max_tries=4 when every fetch is reset"),
    flow("max_tries=1 means one fetch and no pause",
         [{"script": ["hang"], "settings": {"max_tries": 1}}],
         ["results", "fetches", "pauses (s)"], 1, "run_job with max_tries=1 and a hanging feed"),
    flow("a validation error is not retried: FAILED 'validation', no records stored",
         [{"variant": NEGATIVE}], RESULT + ["fetches", "pauses (s)", "rows", "files"], 3,
         "run_job on quotes with a negative price"),
    flow("a schema error is not retried: FAILED 'schema'",
         [{"variant": "a renamed column"}], RESULT + ["fetches", "pauses (s)"], 2,
         "run_job on quotes whose 'ts' column was renamed 'time'"),
    flow("an unexpected error is stored as the category 'internal', never its message",
         [{"script": ["bug"]}], RESULT + ["fetches", "files"], 1.5,
         "run_job when the quote client raises RuntimeError"),
    flow("a failed run does not pass an older report off as its own",
         [{"hour": 4}, {"hour": 5, "variant": NEGATIVE, "advance": 3600}],
         ["results", "files", "report says raw_hash"], 2,
         "a good run for 04:00, then a run for 05:00 on bad quotes"),
    flow("a FAILED run is retried on the next trigger with a fresh fetch",
         [{"variant": NEGATIVE}, {"advance": 3600}], RESULT + ["attempts", "fetches"], 2,
         "run_job on bad quotes, then an hour later on good quotes"),
    # Rule (Part 3, "The window rule (freshness)"): "step 4 passes the job's window to
    # `validate_quotes`, which raises `ValidationError` unless every quote's time `ts` satisfies
    # `job.window_start <= ts < job.window_end`. A feed that serves another hour's quotes [...]
    # ends the run FAILED with the category `"validation"`, and nothing is published."
    flow("quotes from another hour are not published under this window: FAILED 'validation'",
         [{"hour": 6, "quotes_hour": 5}], RESULT + ["fetches", "rows", "files"], 3,
         "run_job for the 06:00-07:00 window when the feed serves the 05:00-06:00 quotes"),
    # Rule (Part 3, "The window rule (freshness)"), as above: quotes from a later hour are
    # refused too.
    flow("quotes from a later hour are refused as well: FAILED 'validation'",
         [{"hour": 4, "quotes_hour": 5}], RESULT + ["rows", "files"], 1,
         "run_job for the 04:00-05:00 window when the feed serves the 05:00-06:00 quotes"),
]
