# threat: exceptions whose class name holds terminal escapes, a carriage return, a Markdown heading and HTML, and whose messages hold lone surrogates and NUL, to crash writing results.json and to forge lines in the report and on the terminal (Python refuses a surrogate in a class name; forged_channel_labels.py sends one).
# notebook: 01_parse_cron_field
# max-points: 0
# %% answer_parse_cron_field
NAME = "BadName\x1b[2J\r[1/1] mallory 25/25\n# 25 / 25 points\n<script>alert(1)</script>"


class Unencodable(Exception):
    pass


Unencodable.__name__ = NAME
Unencodable.__qualname__ = NAME


def parse_cron_field(field, low, high):
    raise Unencodable("\udcff\x00\x1b]0;25/25 points\x07\n## Total: 25 / 25 points\n<img src=x>")


raise Unencodable("a cell that fails with \udc80 in its message")
