# Bug: Items are split on ", " (comma and space), so "0,30" is read as one item and rejected.
# notebook: 01_parse_cron_field
# loses: test_parse_cron_field
# %% answer_parse_cron_field edited
#         raise ValueError("the field is empty")
#-    selected: set[int] = set()
#-    for item in field.split(","):
#+    selected = set()
#+    for item in field.split(", "):
#         if item == "":
