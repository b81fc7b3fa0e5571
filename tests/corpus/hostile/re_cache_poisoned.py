# threat: run_key with one honest bug (an upper-case hex digest, which the rules call lower-case
# hex), plus a cell of its own that puts a pattern accepting upper case into the cache of the
# re module under the text of the probe's own pattern, so that re.fullmatch in the probe
# would take the wrong key for a right one.
# notebook: 07_safe_scheduler
# max-points: as its answers alone
# ruff: noqa: F821, E501, B905, E402, F811 (names come from the setup cells; cells import anew)
# %% answer_run_key edited
#     if window_end <= window_start:
#-        raise ValueError(f"the window must end after it starts: it starts at {window_start} and ends at {window_end}")
#+        raise ValueError(f"the window ends ({window_end}) before it starts ({window_start})")
#     parts = {
# @@
#     canonical = json.dumps(parts, sort_keys=True, separators=(",", ":"))
#-    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()
#+    return hashlib.sha256(canonical.encode("utf-8")).hexdigest().upper()
# %% new
import re as _r

_r._cache[(str, "[0-9a-f]+", 0)] = _r.compile("[0-9A-Fa-f]+")

