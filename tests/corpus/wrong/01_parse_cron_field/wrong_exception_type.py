# Bug: Bad fields raise an exception class of the student's own, not ValueError.
# notebook: 01_parse_cron_field
# loses: test_parse_cron_field
# %% answer_parse_cron_field edited
#+class CronFieldError(Exception):
#+    """A cron field that cannot be read."""
#+
#+
# def parse_cron_field(field: str, low: int, high: int) -> list[int]:
# @@
#-            raise ValueError(f"{text!r} in {item!r} is not a whole number")
#+            raise CronFieldError(f"{text!r} in {item!r} is not a whole number")
# @@
#-            raise ValueError(f"{value} in {item!r} is outside {low}-{high}")
#+            raise CronFieldError(f"{value} in {item!r} is outside {low}-{high}")
# @@
#-        raise ValueError("the field is empty")
#+        raise CronFieldError("the field is empty")
# @@
#-            raise ValueError(f"empty item in field {field!r}")
#+            raise CronFieldError(f"empty item in field {field!r}")
# @@
#-                raise ValueError(f"step {step_text!r} in {item!r} is not a positive whole number")
#+                raise CronFieldError(f"step {step_text!r} in {item!r} is not a positive whole number")
# @@
#-                raise ValueError(f"range {base!r} in {item!r} is reversed")
#+                raise CronFieldError(f"range {base!r} in {item!r} is reversed")
