# Bug: fire_together collects its results with concurrent.futures and `future.result()`, which
# raises again what a thread's run_job raised, instead of leaving None in that thread's place.
# ruff: noqa: F821, E501, B905 (the other names come from the notebook's setup cells)
# notebook: 07_safe_scheduler
# loses: test_proofs
# %% new:answer_proofs
from concurrent.futures import ThreadPoolExecutor


def fire_together(db_path, job: Job, source: QuoteSource, store: ArtifactStore, clock: Clock,
                  workers: int = 2) -> list[dict]:
    """Trigger the same run from `workers` threads at the same moment; their results in order."""
    barrier = threading.Barrier(workers)

    def trigger(index: int) -> dict:
        db = connect(db_path)  # one connection per thread
        try:
            barrier.wait(timeout=5)
            return run_job(db, job, source, store, clock, owner=f"worker-{index + 1}")
        finally:
            db.close()

    with ThreadPoolExecutor(max_workers=workers) as pool:
        futures = [pool.submit(trigger, index) for index in range(workers)]
        return [future.result() for future in futures]
