# Bug: config_hash dumps the configuration without sort_keys, so the same configuration
# written with its keys in another order gets another hash, and another run key.
# ruff: noqa: F821, E501 (the other names come from the notebook's setup cells)
# notebook: 07_safe_scheduler
# loses: test_run_key
# %% new:answer_run_key
def config_hash(config: dict) -> str:
    """sha256 (hex) of the configuration as canonical JSON: sorted keys, no spaces."""
    canonical = json.dumps(config, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()

