# Bug: the pasted backoff_delays has no jitter, so the job's pauses are not the ones notebook 05
# defines (every client of the feed comes back at once).
# ruff: noqa: F821, E501, B905 (the other names come from the notebook's setup cells)
# notebook: 07_safe_scheduler
# loses: test_job_flow
# %% answer_backoff_delays
def backoff_delays(attempts: int, base: float, cap: float, seed: int) -> list[float]:
    """Capped exponential backoff, but without jitter."""
    if attempts < 0 or base < 0 or cap < 0:
        raise ValueError("arguments must be 0 or more")
    return [min(cap, base * 2.0 ** min(i, 1023)) for i in range(attempts)]
