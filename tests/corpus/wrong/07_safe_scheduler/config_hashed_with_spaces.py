# Bug: config_hash sorts the keys but keeps json.dumps's default separators (", " and ": "),
# so its JSON is not the canonical form the notebook gives and the hash differs.
# ruff: noqa: F821, E501 (the other names come from the notebook's setup cells)
# notebook: 07_safe_scheduler
# loses: test_run_key
# %% new:answer_run_key
def config_hash(config: dict) -> str:
    """sha256 (hex) of the configuration as canonical JSON: sorted keys, no spaces."""
    canonical = json.dumps(config, sort_keys=True)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()

