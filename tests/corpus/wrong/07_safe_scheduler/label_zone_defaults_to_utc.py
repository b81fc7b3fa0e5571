# Bug: local_label's zone defaults to "UTC", not "Asia/Karachi", so a label asked for without
# a zone shows UTC time.
# ruff: noqa: F821, E501 (the other names come from the notebook's setup cells)
# notebook: 07_safe_scheduler
# loses: test_scheduling
# %% answer_scheduling edited
#
#-def local_label(moment: datetime, zone: str = "Asia/Karachi") -> str:
#+def local_label(moment: datetime, zone: str = "UTC") -> str:
#     """How a stored UTC moment is shown to people: 'YYYY-MM-DD HH:MM ZONE' in the local zone."""
