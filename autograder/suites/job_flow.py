"""Hidden tests for run_job, the job flow (notebook 07, 5 points)."""

from autograder.suite import Case

RESULT = ["results", "runs"]
NEGATIVE = "a row with a negative price"

# The rules of the exercise section (Part 3), word for word.
ORDER = "`run_job` does one logical run, in this order."
STEPS = "call `on_step(name)` with the name shown"
NO_STEP = "never for a SKIPPED or DUPLICATE run, no name after a failed step"
KEYS = "is a dict with exactly these keys"
LAST = "Only now `finish_run(..., \"SUCCEEDED\", ...)`."
ON_ERROR = "**On an `Exception`** in steps 3 to 6: remove this run's artifacts"
SKIPPED = "If the action is `\"skipped\"` return status `\"SKIPPED\"`"
RETRY = ("after a failed try `i` (from 0) that raised a `TransientError`, call "
         "`clock.sleep(delays[i])`")
NO_LAST_PAUSE = "There is no pause after the last try"
NOT_RETRIED = "Any other error is not retried."
CATEGORY = "`finish_run(..., \"FAILED\", clock.now(), error_category(error))`"
NO_REPORT = "a failed run has no report of its own"
FRESH = "Otherwise fetch with `source.fetch(job.fetch_deadline)`"
WINDOW = "`job.window_start <= ts < job.window_end`"


def flow(name: str, runs: list, observe: list, weight: float, shows: str, rule: str) -> Case:
    return Case(name=name, probe="job_flow.scenario", args=(runs, observe), weight=weight,
                shows=shows, rule=rule)


CASES = [
    flow("a good run: SUCCEEDED, with its records, metrics, artifacts and their hashes",
         [{}], RESULT + ["rows", "files", "artifact hashes", "report says raw_hash"], 3,
         "run_job on good quotes",
         ORDER),
    flow("the steps are reported in order, ending with 'succeeded'",
         [{}], ["steps"], 1, "run_job on good quotes, watching on_step",
         STEPS),
    flow("a SKIPPED run reports no step", [{}, {"advance": 60}], ["steps of the last run"], 0.5,
         "run_job twice for the same window, watching on_step", NO_STEP),
    flow("a run that fails validation reports no step after 'raw_stored'",
         [{"variant": NEGATIVE}], ["steps of the last run after its first two"], 0.5,
         "run_job on quotes with a negative price, watching on_step", NO_STEP),
    flow("every artifact is written while the run is still RUNNING (SUCCEEDED comes last)",
         [{}], ["states at artifact writes", "runs"], 2,
         "run_job on good quotes, reading the run's state as each artifact is written",
         LAST),
    flow("a failed artifact write: FAILED 'artifact', and no half-published report is left",
         [{"fail_on": ["records"]}], RESULT + ["files", "states at artifact writes"], 3,
         "run_job when writing the records file fails",
         ON_ERROR),
    flow("a SUCCEEDED, a SKIPPED and a FAILED result each have exactly the keys listed",
         [{"hour": 4}, {"hour": 4, "advance": 60}, {"hour": 5, "variant": NEGATIVE}],
         ["result keys"], 0.5,
         "run_job for 04:00, again for 04:00, then for 05:00 on quotes with a negative price",
         KEYS),
    flow("the same run a second time is SKIPPED: no fetch, no new rows",
         [{}, {"advance": 60}], ["results", "fetches", "rows", "attempts"], 2,
         "run_job twice for the same window",
         SKIPPED),
    flow("transient errors are retried after your backoff_delays, and the run succeeds",
         [{"script": ["reset", "hang"]}],
         ["results", "fetches", "pauses (s)", "clock (s after start)"], 3,
         "run_job when the first fetch is reset and the second hangs",
         RETRY),
    flow("retries stop after max_tries: FAILED 'transient', nothing published",
         [{"script": ["reset"] * 6, "settings": {"max_tries": 4}}],
         RESULT + ["fetches", "pauses (s)", "files"], 2,
         "run_job with max_tries=4 when every fetch is reset",
         NO_LAST_PAUSE),
    flow("max_tries=1 means one fetch and no pause",
         [{"script": ["hang"], "settings": {"max_tries": 1}}],
         ["results", "fetches", "pauses (s)"], 1, "run_job with max_tries=1 and a hanging feed",
         NO_LAST_PAUSE),
    flow("a validation error is not retried: FAILED 'validation', no records stored",
         [{"variant": NEGATIVE}], RESULT + ["fetches", "pauses (s)", "rows", "files"], 3,
         "run_job on quotes with a negative price",
         NOT_RETRIED),
    flow("a schema error is not retried: FAILED 'schema'",
         [{"variant": "a renamed column"}], RESULT + ["fetches", "pauses (s)"], 2,
         "run_job on quotes whose 'ts' column was renamed 'time'",
         NOT_RETRIED),
    flow("an unexpected error is stored as the category 'internal', never its message",
         [{"script": ["bug"]}], RESULT + ["fetches", "files"], 1.5,
         "run_job when the quote client raises RuntimeError",
         CATEGORY),
    flow("a failed run does not pass an older report off as its own",
         [{"hour": 4}, {"hour": 5, "variant": NEGATIVE, "advance": 3600}],
         ["results", "files", "report says raw_hash"], 2,
         "a good run for 04:00, then a run for 05:00 on bad quotes",
         NO_REPORT),
    flow("a FAILED run is retried on the next trigger with a fresh fetch",
         [{"variant": NEGATIVE}, {"advance": 3600}], RESULT + ["attempts", "fetches"], 2,
         "run_job on bad quotes, then an hour later on good quotes",
         FRESH),
    flow("quotes from another hour are not published under this window: FAILED 'validation'",
         [{"hour": 6, "quotes_hour": 5}], RESULT + ["fetches", "rows", "files"], 3,
         "run_job for the 06:00-07:00 window when the feed serves the 05:00-06:00 quotes",
         WINDOW),
    flow("quotes from a later hour are refused as well: FAILED 'validation'",
         [{"hour": 4, "quotes_hour": 5}], RESULT + ["rows", "files"], 1,
         "run_job for the 04:00-05:00 window when the feed serves the 05:00-06:00 quotes",
         WINDOW),
]
