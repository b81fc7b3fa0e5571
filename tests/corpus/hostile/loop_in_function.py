# threat: the graded function never returns.
# notebook: 01_parse_cron_field
# max-points: 0
# %% answer_parse_cron_field
def parse_cron_field(field, low, high):
    total = 0
    while True:
        total += 1
