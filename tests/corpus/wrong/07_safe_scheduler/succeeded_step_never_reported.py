# Bug: run_job returns SUCCEEDED without reporting the last step, "succeeded", so whoever
# watches on_step never learns that the run finished.
# ruff: noqa: F821, E501, B905 (the other names come from the notebook's setup cells)
# notebook: 07_safe_scheduler
# loses: test_job_flow
# %% new:answer_job_flow
def run_job(db: sqlite3.Connection, job: Job, source: QuoteSource, store: ArtifactStore,
            clock: Clock, owner: str = "worker-1", on_step=None) -> dict:
    """Run one logical run safely; return what happened (see the table above)."""
    step = on_step or (lambda name: None)
    key = run_key(job.name, job.window_start, job.window_end, job.config, source.name)
    names = artifact_names(key)
    claim = acquire_run(db, key, clock.now(), job.lease_seconds, owner)
    attempt, raw_hash = claim["attempt"], claim["raw_hash"]
    result = {"run_key": key, "status": None, "attempt": attempt, "raw_hash": raw_hash,
              "error": None, "report": None}
    if claim["action"] == "skipped":
        return {**result, "status": "SKIPPED", "report": names[0]}
    if claim["action"] == "duplicate":
        return {**result, "status": "DUPLICATE"}
    step("acquired")
    try:
        if raw_hash is not None:  # a recovered run resumes from the raw input it already has
            raw = load_raw(db, raw_hash)
        else:
            delays = backoff_delays(job.max_tries - 1, job.backoff_base, job.backoff_cap,
                                    job.backoff_seed)
            for try_number in range(job.max_tries):
                try:
                    raw = source.fetch(job.fetch_deadline)
                    break
                except TransientError:
                    if try_number == job.max_tries - 1:
                        raise
                    clock.sleep(delays[try_number])
            raw_hash = store_raw(db, raw, clock.now())
            db.execute("UPDATE runs SET raw_hash = ? WHERE run_key = ? AND attempt = ?",
                       (raw_hash, key, attempt))
        step("raw_stored")
        # Only this window's quotes; ValidationError and SchemaError are never retried.
        records = validate_quotes(raw, job.window_start, job.window_end)
        store_records(db, key, records)
        step("normalised")
        metrics = compute_metrics(records)
        append_metrics(db, key, attempt, metrics)
        step("metrics")
        contents = [report_bytes(key, job, raw_hash, metrics), records_csv(records)]
        for name, data in zip(names, contents):
            with transaction(db):  # the write lock: no takeover between the check and the write
                if not holds_run(db, key, attempt):  # fenced: a newer attempt owns the run
                    return {**result, "status": "LOST", "raw_hash": raw_hash}
                append_artifact(db, key, attempt, name, store.write(name, data))
        if not all(store.exists(name) for name in names):
            raise ArtifactError("an artifact is missing after it was written")
        step("artifacts")
    except Exception as error:
        with transaction(db):
            if not holds_run(db, key, attempt):  # the files belong to the attempt that holds the run
                return {**result, "status": "LOST", "raw_hash": raw_hash}
            for name in names:  # a half-published run must not look like a current report
                store.remove(name)
        finish_run(db, key, attempt, "FAILED", clock.now(), error_category(error))
        return {**result, "status": "FAILED", "raw_hash": raw_hash,
                "error": error_category(error)}
    if not finish_run(db, key, attempt, "SUCCEEDED", clock.now()):
        return {**result, "status": "LOST", "raw_hash": raw_hash}
    return {**result, "status": "SUCCEEDED", "raw_hash": raw_hash, "report": names[0]}
