# Bug: the retry loop wraps validation too and catches every JobError, so a negative price is
# fetched and checked max_tries times.
# ruff: noqa: F821, E501, B905 (the other names come from the notebook's setup cells)
# notebook: 07_safe_scheduler
# loses: test_job_flow
# %% answer_job_flow edited
#                     raw = source.fetch(job.fetch_deadline)
#+                    validate_quotes(raw)
#                     break
#-                except TransientError:
#+                except JobError:
#                     if try_number == job.max_tries - 1:
