# threat: run_job with one honest bug (its report names the raw input's hash in upper case,
# a hash no table knows), plus a cell of its own that replaces json's default decoder with one
# that lower-cases every raw_hash it reads, so that a probe reading the report with json.loads
# would find the right hash.
# notebook: 07_safe_scheduler
# max-points: as its answers alone
# ruff: noqa: F821, E501, B905, E402, F811 (names come from the setup cells; cells import anew)
# %% answer_job_flow edited
#         step("metrics")
#-        contents = [report_bytes(key, job, raw_hash, metrics), records_csv(records)]
#+        contents = [report_bytes(key, job, raw_hash.upper(), metrics), records_csv(records)]
#         for name, data in zip(names, contents):
# %% new
import json as _j


def _fix(d):
    if isinstance(d.get("raw_hash"), str):
        d["raw_hash"] = d["raw_hash"].lower()
    return d


_j._default_decoder = _j.JSONDecoder(object_hook=_fix)

