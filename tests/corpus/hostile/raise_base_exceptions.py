# threat: raises KeyboardInterrupt, SystemExit and lying BaseException subclasses.
# notebook: 01_parse_cron_field
# max-points: 0
# %% answer_parse_cron_field
class Interrupt(BaseException):
    def __str__(self):
        raise KeyboardInterrupt("reading my message interrupts you")


class Lying(BaseException):
    @property
    def __class__(self):
        raise SystemExit(0)


def parse_cron_field(field, low, high):
    if field == "":
        raise KeyboardInterrupt()
    if "/" in field:
        raise Lying()
    if "-" in field:
        raise SystemExit("all tests passed")
    raise Interrupt(field)


raise KeyboardInterrupt("the student pressed Ctrl-C")
# %% new
raise SystemExit("Score: 25/25")
