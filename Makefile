# make demo / make test on a fresh machine: setup builds .venv once, then is instant.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.setup-stamp

.PHONY: setup test test-all demo bench compile-profile golden clean report-check check-reports

setup: $(STAMP)

# Re-installs only when pyproject.toml changes (or .venv is gone). --no-compile: Python byte-compiles the modules
# it imports on first use, not every file of every package (49 -> 27 s for the install). glade warm compiles every
# game's numba kernels into numba's cache now, two games at a time (about 100 s on a quiet 2-core machine), so no
# run or test compiles them first.
$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --no-compile -e '.[test]'
	$(BIN)/glade warm --jobs 2
	touch $(STAMP)

# Two worker processes (pytest-xdist), one per core; a test file stays in one worker (its module fixtures).
test: setup
	$(BIN)/python -m pytest -m "not slow" -q -n 2 --dist loadfile

test-all: setup
	$(BIN)/python -m pytest -q -n 2 --dist loadfile

# One run (seat advantage and skill gradient, greedy against the blocker persona, seats rotated), one
# sweep (board size x action track, 2,000 deals a cell), the engine check, then both reports:
# reports/demo/report.{html,pdf} (the run) and reports/demo-sweep/report.{html,pdf} (the sweep).
demo: setup
	$(BIN)/glade play overgrowth --games 5000 --seed 1 --bots greedy,blocker --rotate-seats --trajectories --jobs 2 --out runs/demo/greedy-blocker
	$(BIN)/glade sweep configs/sweeps/overgrowth-board-track.toml --games-per-cell 2000 --jobs 2 --out runs/demo/board-track
	$(BIN)/glade verify overgrowth --games 500 --seed 3
	$(BIN)/glade report runs/demo/board-track --out reports/demo-sweep
	$(BIN)/glade report runs/demo/greedy-blocker --out reports/demo

# Look at every report as a reader would: each reports/*/report.html as a headless Chromium screenshot
# (reports/*/check/report.png) and each report.pdf as PNG pages (reports/*/check/page-N.png); then check what a
# machine can: text wider than its box or past the page's column, captions outside their figure, a figure's text
# cut off at its picture's edge (HTML, laid out by Chromium), text outside the PDF's margins and figures whose ink
# reaches their edge (PDF, pypdfium2). It fails on any (python -m analysis.report.pages check FILE...).
# PDF pages: pdftoppm (poppler-utils) if installed, else pypdfium2 (the dev extra, installed here if missing).
# Without chromium (apt-get install -y chromium) the HTML's figures are written out instead (check/figure-N.svg).
# The screenshot shows the first SCREEN_HEIGHT pixels; make report-check SCREEN_HEIGHT=12000 shows a whole report.
# It first writes its own two reports from small seeded runs (check-reports, about a minute), so it works from a
# clean tree: reports/check-overgrowth (points per action), reports/check-vora (points per special, passive
# specials), reports/check-vorex (production kinds) and reports/check-reforest (each card's own points); make demo's
# reports are checked too when present. Not part of make test.
CHROMIUM ?= chromium
SCREEN_HEIGHT ?= 4000
CHECK_RUNS := runs/check
check-reports: setup
	rm -rf $(CHECK_RUNS)
	$(BIN)/glade play overgrowth --games 300 --seed 1 --bots greedy,random --rotate-seats --trajectories -q --out $(CHECK_RUNS)/overgrowth
	$(BIN)/glade play vora --games 200 --seed 1 --bots greedy,greedy,greedy --trajectories -q --out $(CHECK_RUNS)/vora
	$(BIN)/glade play vorex --players 3 --games 60 --seed 1 --bots greedy --trajectories -q --out $(CHECK_RUNS)/vorex
	$(BIN)/glade play reforest --players 3 --games 60 --seed 1 --bots greedy --trajectories -q --out $(CHECK_RUNS)/reforest
	$(BIN)/glade report $(CHECK_RUNS)/overgrowth --out reports/check-overgrowth
	$(BIN)/glade report $(CHECK_RUNS)/vora --out reports/check-vora
	$(BIN)/glade report $(CHECK_RUNS)/vorex --out reports/check-vorex
	$(BIN)/glade report $(CHECK_RUNS)/reforest --out reports/check-reforest

report-check: check-reports
	@$(BIN)/python -c "import pypdfium2" 2>/dev/null || $(BIN)/python -m pip install --quiet -e '.[dev]'
	@for html in reports/*/report.html; do \
	  dir=$$(dirname $$html); mkdir -p $$dir/check; profile=$$(mktemp -d); \
	  if ! command -v $(CHROMIUM) >/dev/null; then \
	    echo "report-check: $(CHROMIUM) not found (apt-get install -y chromium): the HTML's figures only"; \
	    $(BIN)/python -m analysis.report.pages figures $$html $$dir/check || exit 1; continue; \
	  fi; \
	  $(CHROMIUM) --headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking \
	    --disable-component-update --disable-sync --user-data-dir=$$profile --hide-scrollbars \
	    --screenshot=$(CURDIR)/$$dir/check/report.png --window-size=1280,$(SCREEN_HEIGHT) file://$(CURDIR)/$$html 2>/dev/null \
	    || { echo "report-check: chromium failed on $$html"; rm -rf $$profile; exit 1; }; \
	  rm -rf $$profile; test -s $$dir/check/report.png || { echo "report-check: no screenshot of $$html"; exit 1; }; \
	  echo "$$dir/check/report.png"; \
	done
	@for pdf in reports/*/report.pdf; do \
	  dir=$$(dirname $$pdf); mkdir -p $$dir/check; rm -f $$dir/check/page-*.png; \
	  if command -v pdftoppm >/dev/null; then \
	    pdftoppm -png -r 80 $$pdf $$dir/check/page || { echo "report-check: pdftoppm failed on $$pdf"; exit 1; }; \
	    echo "$$dir/check/page-*.png ($$(ls $$dir/check/page-*.png | wc -l) pages)"; \
	  else \
	    $(BIN)/python -m analysis.report.pages pdf $$pdf $$dir/check || exit 1; \
	  fi; \
	done
	@if command -v $(CHROMIUM) >/dev/null; then \
	  CHROMIUM=$(CHROMIUM) $(BIN)/python -m analysis.report.pages check reports/*/report.html reports/*/report.pdf; \
	else \
	  echo "report-check: $(CHROMIUM) not found: the HTML's layout is not checked, the PDFs are"; \
	  $(BIN)/python -m analysis.report.pages check reports/*/report.pdf; \
	fi

bench: setup
	OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 $(BIN)/glade bench --all --json  # one thread, as the README speed table is measured

# Where a cold compile of one game's kernels goes (CPU s per function, functions compiled twice), from an empty
# numba cache: make compile-profile GAME=vorex
GAME ?= vorex
compile-profile: setup
	NUMBA_CACHE_DIR=$$(mktemp -d) $(BIN)/python -m sims.compile_profile $(GAME)

# Rewrite the golden playthroughs after an intended rules or bot change; review the diff.
golden: setup
	GLADE_UPDATE_GOLDEN=1 $(BIN)/python -m pytest -q tests -k golden
	git diff --stat tests/golden

# Build files, caches, the demo runs and their reports; other runs, reports and .venv stay.
clean:
	rm -rf runs/demo reports/demo reports/demo-sweep build *.egg-info .pytest_cache
	find . -path ./$(VENV) -prune -o -name __pycache__ -type d -prune -exec rm -rf {} +
