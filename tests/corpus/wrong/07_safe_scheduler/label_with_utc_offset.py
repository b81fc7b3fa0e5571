# Bug: local_label formats the zone with %z, the offset (+0500), instead of %Z, the zone's
# abbreviation (PKT) the notebook asks for.
# ruff: noqa: F821, E501 (the other names come from the notebook's setup cells)
# notebook: 07_safe_scheduler
# loses: test_scheduling
# %% answer_scheduling edited
#         raise ValueError(f"{moment!r} has no time zone; stored times are aware UTC datetimes")
#-    return moment.astimezone(ZoneInfo(zone)).strftime("%Y-%m-%d %H:%M %Z")
#+    return moment.astimezone(ZoneInfo(zone)).strftime("%Y-%m-%d %H:%M %z")
#
