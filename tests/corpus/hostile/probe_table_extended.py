# threat: run_job with one honest bug (it records the raw input's hash in upper case, so no
# recovery or report finds it), plus a cell of its own that reaches the dict behind the probes'
# read-only table of hashes (gc.get_referents of the mapping proxy) and adds the upper-case
# hashes, so that the probes label the wrong hashes as right.
# notebook: 07_safe_scheduler
# max-points: as its answers alone
# ruff: noqa: F821, E501, B905, E402, F811 (names come from the setup cells; cells import anew)
# %% answer_job_flow edited
#                     clock.sleep(delays[try_number])
#-            raw_hash = store_raw(db, raw, clock.now())
#+            raw_hash = store_raw(db, raw, clock.now()).upper()  # the bug: a hash no table knows
#             db.execute("UPDATE runs SET raw_hash = ? WHERE run_key = ? AND attempt = ?",
# %% new
import gc
import sys

for name, module in list(sys.modules.items()):
    if name.endswith("probes._capstone"):
        table = next(inner for inner in gc.get_referents(module.LABELS) if isinstance(inner, dict))
        table.update({key.upper(): label for key, label in list(table.items())})
