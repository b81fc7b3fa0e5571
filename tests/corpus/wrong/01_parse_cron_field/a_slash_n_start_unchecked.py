# Bug: the start of "a/n" is not checked against low..high: "60/5" on minutes selects nothing
# instead of raising (and "0/5" on days would select 0).
# notebook: 01_parse_cron_field
# loses: test_parse_cron_field
# %% answer_parse_cron_field edited
#                 raise ValueError(f"range {base!r} in {item!r} is reversed")
#+        elif has_step:  # a/n runs from a up to high
#+            if not (base.isascii() and base.isdigit()):
#+                raise ValueError(f"{base!r} in {item!r} is not a whole number")
#+            start, end = int(base), high
#         else:
#-            start = number(base, item)
#-            end = high if has_step else start
#+            start = end = number(base, item)
#         selected.update(range(start, end + 1, step))
