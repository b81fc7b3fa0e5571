# Bug: a recovered run fetches the raw input again, so it reports the feed's newer data under the
# old window.
# ruff: noqa: F821, E501, B905 (the other names come from the notebook's setup cells)
# notebook: 07_safe_scheduler
# loses: test_proofs
# %% answer_job_flow edited
#     try:
#-        if raw_hash is not None:  # a recovered run resumes from the raw input it already has
#+        if False:
#             raw = load_raw(db, raw_hash)
