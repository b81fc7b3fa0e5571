# threat: imports the course's grader and replaces its judge, so any answer passes; the function returns zeros.
# notebook: 01_parse_cron_field
# max-points: 0
# %% answer_parse_cron_field
try:
    import autograder.scoring

    autograder.scoring.judge = lambda *args: (True, "")
    print("ESCAPED: replaced autograder.scoring.judge", flush=True)
except Exception:
    pass


def parse_cron_field(field, low, high):
    return [0, 0]
