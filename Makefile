# Bootstrap targets. Each one creates .venv on first use and reinstalls only
# when pyproject.toml changes, so repeated runs cost nothing.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.labkit-installed
ARGS ?=

.PHONY: run test lab doctor wiredtiger clean

# `labkit run` exits 1 when a claim does not hold; for the B-tree claims on some engines
# that is the finding itself, so here it is reported rather than treated as a crash.
run: $(STAMP)
	@$(BIN)/labkit run $(ARGS); status=$$?; \
	if [ $$status -eq 1 ]; then echo "labkit run: exit status 1 (a claim did not hold or erred: see the table)"; fi; \
	[ $$status -le 1 ]

test: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/python -m pytest $(ARGS)

# `labkit server` starts its mongod with a 0.25 GB WiredTiger cache (the smallest mongod
# accepts), which the B-tree lesson needs; ARGS go to JupyterLab, e.g. ARGS="--no-browser
# --ip 0.0.0.0". JupyterLab refuses to run as root without --allow-root (containers, VMs).
LAB_AS_ROOT = $(shell $(PYTHON) -c 'import os; print("--allow-root" if hasattr(os, "geteuid") and os.geteuid() == 0 else "")')

lab: $(STAMP)
	$(BIN)/labkit server --optional -- $(BIN)/jupyter lab --notebook-dir notebooks $(LAB_AS_ROOT) $(ARGS)

doctor: $(STAMP)
	$(BIN)/labkit doctor

# MongoDB's storage engine, embedded; builds from source: needs cmake, ninja, swig and a C
# and C++ compiler (environment.yml lists them; on Debian: apt-get install cmake ninja-build
# swig build-essential).
wiredtiger: $(STAMP)
	$(BIN)/python -m pip install -q -e '.[wiredtiger]'

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "labkit needs Python 3.11 or newer")'
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[test,lab]'
	touch $(STAMP)

clean:
	rm -rf $(VENV) reports .pytest_cache .hypothesis
