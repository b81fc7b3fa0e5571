# Honest: fire_together runs its triggers in a concurrent.futures.ThreadPoolExecutor, whose map
# gives the results in the order of the triggers; a trigger whose run_job raised returns None.
# The pool's threads outlive their tasks; the hidden test of the results' order waits for
# each task's future, not for its thread to end.
# ruff: noqa: F821 (the other names come from the notebook's setup cells and answers)
# notebook: 07_safe_scheduler
# %% new:answer_proofs
from concurrent.futures import ThreadPoolExecutor


def fire_together(db_path, job, source, store, clock, workers=2):
    start_line = threading.Barrier(workers)

    def one_trigger(number):
        connection = connect(db_path)  # each thread its own connection
        try:
            start_line.wait(timeout=5)
            return run_job(connection, job, source, store, clock, owner=f"worker-{number}")
        except Exception:
            return None
        finally:
            connection.close()

    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(one_trigger, range(1, workers + 1)))
