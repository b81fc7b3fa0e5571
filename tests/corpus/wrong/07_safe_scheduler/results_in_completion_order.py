# Bug: fire_together appends each thread's result as the thread finishes, so the list comes
# back in the order the triggers ended, not in thread order.
# ruff: noqa: F821, E501, B905 (the other names come from the notebook's setup cells)
# notebook: 07_safe_scheduler
# loses: test_proofs
# %% new:answer_proofs
def fire_together(db_path, job: Job, source: QuoteSource, store: ArtifactStore, clock: Clock,
                  workers: int = 2) -> list[dict]:
    """Trigger the same run from `workers` threads at the same moment; their results in order."""
    barrier = threading.Barrier(workers)
    results = []
    lock = threading.Lock()

    def worker(index: int) -> None:
        db = connect(db_path)  # one connection per thread
        try:
            barrier.wait(timeout=5)
            result = run_job(db, job, source, store, clock, owner=f"worker-{index + 1}")
        except Exception:
            result = None
        finally:
            db.close()
        with lock:
            results.append(result)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(workers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results
