# threat: a top-level loop that never ends.
# notebook: 01_parse_cron_field
# max-points: 0
# %% answer_parse_cron_field
def parse_cron_field(field, low, high):
    raise NotImplementedError()


while True:
    pass
