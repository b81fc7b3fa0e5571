# Course tasks. Every target sets up .venv first (Python 3.10+ needed on PATH as python3).
PYTHON ?= python3
VENV := .venv
BIN := $(CURDIR)/$(VENV)/bin
export PATH := $(BIN):$(PATH)
# The assignments, in course order, as the rubric (autograder/rubric.py) declares them.
ASSIGNMENTS = $(shell $(BIN)/python -c 'from autograder.rubric import ASSIGNMENTS; print(*ASSIGNMENTS)')
DEMO_CLASS := build/sample_class
DEMO_OUT := build/demo

.PHONY: setup release test test-fast test-browser demo lab lab-instructor lint outputs clean

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

# The suite runs in TEST_WORKERS processes (pytest-xdist), each taking whole test files, so a
# class graded once for a file's tests is graded once; much of it waits on sandboxes and
# nbgrader, so more processes than cores still help. Tests never depend on their order.
TEST_WORKERS ?= 3
test: setup
	$(BIN)/python -m pytest tests -q -n $(TEST_WORKERS) --dist loadfile
	env -u MPLBACKEND $(BIN)/python -m pytest --nbval solutions -q -p no:cacheprovider -n $(TEST_WORKERS) --dist loadfile
	env -u MPLBACKEND $(BIN)/python -m pytest --nbval-lax notebooks -q -p no:cacheprovider -n $(TEST_WORKERS) --dist loadfile

# The fast tier: unit tests of the grading path's pure steps, no kernel and no sandbox.
test-fast: setup
	$(BIN)/python -m pytest tests -q -m fast

# ruff, then mypy on autograder/ (its settings are in pyproject.toml).
lint: setup
	$(BIN)/ruff check autograder tests benchmarks
	$(BIN)/mypy

demo: release
	@rm -rf $(DEMO_CLASS) $(DEMO_OUT)
	$(BIN)/python tests/fixtures.py data/sample_class/roster.json $(DEMO_CLASS)
	$(BIN)/python -m autograder grade-batch $(DEMO_CLASS) --out $(DEMO_OUT)
	@echo
	@echo "Gradebook ($(DEMO_OUT)/grades.csv):"
	@$(BIN)/python -m autograder.gradebook $(DEMO_OUT)/grades.csv
	@echo
	@echo "Per-student reports: $(DEMO_OUT)/students/<student>/report.md and <assignment>/results.json"
	@echo "What the grader noticed as tampering, per student: $(DEMO_OUT)/flags.csv"

# Students: JupyterLab on notebooks/, with nbgrader's exchange and instructor tools hidden
# (jupyter/student/labconfig/page_config.json); Validate stays and checks every cell
# (jupyter/student/nbgrader_config.py); code cells wrap long lines by default
# (jupyter/student/labconfig/default_setting_overrides.json). The browser suite starts its
# student server from this recipe's one line (tests/browser/labserver.py).
lab: setup
	JUPYTER_CONFIG_PATH=$(CURDIR)/jupyter/student $(BIN)/jupyter lab notebooks

# Instructors: JupyterLab at the repository root (solutions/, Create Assignment, Formgrader).
lab-instructor: setup
	$(BIN)/jupyter lab --ServerApp.root_dir=$(CURDIR)

# JupyterLab in headless Chromium (system package `chromium`), as a student and an instructor.
# Screenshots of failures go to build/browser/.
test-browser: setup
	env -u MPLBACKEND $(BIN)/python -m pytest tests/browser -q -p no:cacheprovider

# Never submitted/ (student work that git does not hold) nor grades/ (overrides, deadlines).
clean:
	rm -rf build autograded feedback gradebook.db
