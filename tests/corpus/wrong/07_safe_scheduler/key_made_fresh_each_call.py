# Bug: run_key adds a fresh uuid4 to the parts "so that every run is unique": each trigger of
# the same logical run gets a key of its own, so nothing is ever skipped or caught as a duplicate.
# ruff: noqa: F821, E501 (the other names come from the notebook's setup cells)
# notebook: 07_safe_scheduler
# loses: test_run_key
# %% new:answer_run_key
import uuid


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
        "window_end": utc_text(window_end),
        "config_hash": config_hash(config),
        "source": source,
        "id": uuid.uuid4().hex,
    }
    canonical = json.dumps(parts, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()
