# Student style: next_run asks cron_matches about every minute, so each minute parses the
# five fields again (about thirty times the work of parsing once).
# ruff: noqa: F821 (datetime, timedelta and cron_matches come from the notebook)
# notebook: 03_next_run
# %% answer_next_run
def next_run(expression, after):
    cron_matches(expression, after)  # a bad expression raises here, before the search
    moment = after.replace(second=0, microsecond=0) + timedelta(minutes=1)
    while moment <= after + timedelta(days=5 * 366):
        if cron_matches(expression, moment):
            return moment
        moment += timedelta(minutes=1)
    raise ValueError(f"{expression} never fires in five years")
