# Bug: local_label converts whatever it is given, and astimezone reads a moment without a time zone
# in the server's own zone instead of rejecting it.
# ruff: noqa: F821, E501, B905 (the other names come from the notebook's setup cells)
# notebook: 07_safe_scheduler
# loses: test_scheduling
# %% new:answer_scheduling
def local_label(moment: datetime, zone: str = "Asia/Karachi") -> str:
    """How a stored UTC moment is shown to people: 'YYYY-MM-DD HH:MM ZONE' in the local zone."""
    return moment.astimezone(ZoneInfo(zone)).strftime("%Y-%m-%d %H:%M %Z")
