# Course tasks. Every target sets up .venv first (Python 3.10+ needed on PATH as python3).
PYTHON ?= python3
VENV := .venv
BIN := $(CURDIR)/$(VENV)/bin
export PATH := $(BIN):$(PATH)
ASSIGNMENTS := schedules resilience capstone
DEMO_CLASS := build/sample_class
DEMO_OUT := build/demo

.PHONY: setup release test test-grader test-notebooks demo lab lint outputs clean

setup: $(VENV)/.installed

$(VENV)/.installed: requirements.txt pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else "Python 3.10 or newer is needed (found " + sys.version.split()[0] + ")")'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements.txt
	$(BIN)/python -m pip install --quiet --no-deps -e .
	@touch $@

# Student copies: notebooks/ is generated from solutions/ by nbgrader, never edited by hand.
release: setup
	@for a in $(ASSIGNMENTS); do \
		nbgrader generate_assignment $$a --force --log-level=WARN || exit 1; \
	done
	@echo "notebooks/ regenerated from solutions/"

# Re-execute the source notebooks so their stored outputs (compared by nbval) are current.
# Figures need Jupyter's inline backend, so a MPLBACKEND from the environment is dropped.
outputs: setup
	@for nb in solutions/*/*.ipynb; do \
		echo "executing $$nb"; \
		env -u MPLBACKEND jupyter nbconvert --to notebook --execute --inplace --log-level=WARN --ExecutePreprocessor.record_timing=False "$$nb" || exit 1; \
	done

test: setup
	$(BIN)/python -m pytest tests -q
	env -u MPLBACKEND $(BIN)/python -m pytest --nbval solutions -q -p no:cacheprovider
	env -u MPLBACKEND $(BIN)/python -m pytest --nbval-lax notebooks -q -p no:cacheprovider

lint: setup
	$(BIN)/ruff check autograder tests benchmarks

demo: release
	@rm -rf $(DEMO_CLASS) $(DEMO_OUT)
	$(BIN)/python -m autograder.fixtures data/sample_class/roster.json $(DEMO_CLASS)
	$(BIN)/python -m autograder grade-batch $(DEMO_CLASS) --out $(DEMO_OUT)
	@echo
	@echo "Gradebook ($(DEMO_OUT)/grades.csv):"
	@$(BIN)/python -m autograder.gradebook $(DEMO_OUT)/grades.csv
	@echo
	@echo "Per-student reports: $(DEMO_OUT)/students/<student>/report.md and results.json"
	@echo "What the grader noticed as tampering, per student: $(DEMO_OUT)/flags.csv"

lab: setup
	$(BIN)/jupyter lab notebooks

clean:
	rm -rf build autograded feedback submitted gradebook.db
