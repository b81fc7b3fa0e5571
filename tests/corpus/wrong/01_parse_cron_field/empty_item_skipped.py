# Bug: Empty items are skipped instead of rejected: "1,,2" and "1," are accepted, "" gives [].
# notebook: 01_parse_cron_field
# loses: test_parse_cron_field
# %% answer_parse_cron_field edited
#-    if field == "":
#-        raise ValueError("the field is empty")
#     selected: set[int] = set()
# @@
#         if item == "":
#-            raise ValueError(f"empty item in field {field!r}")
#+            continue  # tolerate stray commas
