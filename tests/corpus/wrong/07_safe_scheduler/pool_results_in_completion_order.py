# Bug: fire_together runs its triggers in a thread pool and collects the results with
# as_completed, so the list comes back in the order the triggers ended, not in thread order.
# ruff: noqa: F821 (the other names come from the notebook's setup cells)
# notebook: 07_safe_scheduler
# loses: test_proofs
# %% new:answer_proofs
from concurrent.futures import ThreadPoolExecutor, as_completed


def fire_together(db_path, job: Job, source: QuoteSource, store: ArtifactStore, clock: Clock,
                  workers: int = 2) -> list[dict]:
    """Trigger the same run from `workers` threads at the same moment; their results in order."""
    barrier = threading.Barrier(workers)

    def trigger(index: int) -> dict | None:
        db = connect(db_path)  # one connection per thread
        try:
            barrier.wait(timeout=5)
            return run_job(db, job, source, store, clock, owner=f"worker-{index + 1}")
        except Exception:
            return None
        finally:
            db.close()

    with ThreadPoolExecutor(max_workers=workers) as pool:
        futures = [pool.submit(trigger, index) for index in range(workers)]
        return [future.result() for future in as_completed(futures)]
