# make demo / make test on a fresh machine: setup builds .venv once, then is instant.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.setup-stamp

.PHONY: setup test test-all demo bench golden clean

setup: $(STAMP)

# Re-installs only when pyproject.toml changes (or .venv is gone).
$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

test: setup
	$(BIN)/python -m pytest -m "not slow" -q

test-all: setup
	$(BIN)/python -m pytest -q

# Seat advantage between equal bots, the skill gradient, and the engine check.
demo: setup
	$(BIN)/glade play overgrowth --games 20000 --seed 1 --bots greedy,greedy --out runs/demo/seats
	$(BIN)/glade play overgrowth --games 20000 --seed 1 --bots greedy,random --rotate-seats --out runs/demo/greedy-random
	$(BIN)/glade play overgrowth --games 1000 --seed 1 --bots planner,greedy --rotate-seats --out runs/demo/planner-greedy
	$(BIN)/glade verify overgrowth --games 500 --seed 3

bench: setup
	$(BIN)/glade bench --all --json

# Rewrite the golden playthroughs after an intended rules or bot change; review the diff.
golden: setup
	GLADE_UPDATE_GOLDEN=1 $(BIN)/python -m pytest -q tests/test_overgrowth_runs.py -k golden
	git diff --stat tests/golden

# Build files, caches and the demo run; other runs and .venv stay.
clean:
	rm -rf runs/demo build *.egg-info .pytest_cache
	find . -path ./$(VENV) -prune -o -name __pycache__ -type d -prune -exec rm -rf {} +
