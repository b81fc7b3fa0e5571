# Bug: local_label adds a fixed +5 hours and writes 'PKT', which is wrong for every other zone
# and for daylight saving time.
# ruff: noqa: F821, E501, B905 (the other names come from the notebook's setup cells)
# notebook: 07_safe_scheduler
# loses: test_scheduling
# %% new:answer_scheduling
def local_label(moment: datetime, zone: str = "Asia/Karachi") -> str:
    """How a stored UTC moment is shown to people: 'YYYY-MM-DD HH:MM ZONE' in the local zone."""
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise ValueError(f"{moment!r} has no time zone; stored times are aware UTC datetimes")
    return (moment.astimezone(UTC) + timedelta(hours=5)).strftime("%Y-%m-%d %H:%M PKT")
