# Bug: the run key names the window by its start alone, so a window of another length that
# starts at the same moment counts as the same run.
# ruff: noqa: F821, E501 (the other names come from the notebook's setup cells)
# notebook: 07_safe_scheduler
# loses: test_run_key
# %% new:answer_run_key
def run_key(job: str, window_start: datetime, window_end: datetime, config: dict,
            source: str) -> str:
    """The identity of one logical run: sha256 (hex) of its five parts as canonical JSON."""
    if window_start.tzinfo is None or window_end.tzinfo is None:
        raise ValueError("window_start and window_end must be timezone-aware")
    if window_end <= window_start:
        raise ValueError(f"the window must end after it starts: it starts at {window_start} and ends at {window_end}")
    parts = {
        "job": job,
        "window_start": utc_text(window_start),
        "config_hash": config_hash(config),
        "source": source,
    }
    canonical = json.dumps(parts, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()
