# Bootstrap targets. Each one creates .venv on first use and reinstalls only
# when pyproject.toml changes, so repeated runs cost nothing. A learner's targets (run, lab,
# doctor, wiredtiger) install labkit with the lab extra only (JupyterLab and lesson 07's
# fakes); `make test` adds the test extra (pytest, mypy, ruff, the wire tests' server), which
# no lesson needs.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.labkit-installed
TEST_STAMP := $(VENV)/.labkit-test-installed
ARGS ?=
# The offline route (docs/instructors.md): `make wheels` fills wheels/ on a connected machine;
# `make lab WHEELS=wheels` then installs from that folder alone, never the index, and leaves
# pip as it is (upgrading it would need the index).
WHEELS ?=
PIP_SOURCE = $(if $(WHEELS),--no-index --find-links $(WHEELS))

.PHONY: run test test-tools lab doctor wiredtiger wheels clean

# Exit status 0 unless a behaviour claim does not hold or something erred; survey findings
# (a B-tree claim that does not hold on some engine) never fail it.
run: $(STAMP)
	$(BIN)/labkit run $(ARGS)

# mypy checks labkit while pytest runs: the tests leave a core idle about a fifth of the time,
# which mypy's ten seconds of one core fill. Its report follows the tests' output, and make
# test fails if ruff, mypy or pytest does.
# The tests start hundreds of Python processes (workers, kernels, `labkit` runs, ID-making
# processes); with bytecode written, each loads labkit's modules compiled instead of compiling
# them again, which PYTHONDONTWRITEBYTECODE, where set, would switch off (a tenth of the tests'
# CPU time here). The files go to __pycache__ folders, which git ignores.
test: $(TEST_STAMP)
	$(BIN)/ruff check .
	@report=$$(mktemp); $(BIN)/mypy > "$$report" 2>&1 & typing=$$!; \
	echo "PYTHONDONTWRITEBYTECODE= $(BIN)/python -m pytest $(ARGS)"; \
	PYTHONDONTWRITEBYTECODE= $(BIN)/python -m pytest $(ARGS); tests=$$?; \
	wait $$typing; typed=$$?; echo "$(BIN)/mypy"; cat "$$report"; rm -f "$$report"; \
	test $$tests -eq 0 && test $$typed -eq 0

# `labkit server` starts its mongod with a 0.25 GB WiredTiger cache, the smallest mongod
# accepts (the B-tree lesson's index still fits in it at the default N: docs/write_amplification.md);
# ARGS go to JupyterLab, e.g. ARGS="--no-browser --ip 0.0.0.0". JupyterLab refuses to run as root without --allow-root (containers, VMs).
LAB_AS_ROOT = $(shell $(PYTHON) -c 'import os; print("--allow-root" if hasattr(os, "geteuid") and os.geteuid() == 0 else "")')

# lab-settings/overrides.json is JupyterLab's application settings folder for the lessons: it
# sets fetchNews to "false", so JupyterLab does not open on its "Would you like to get notified
# about official Jupyter news?" prompt (nor fetch news or check for updates) on a learner's
# first start.
# `LABKIT_LANG=vi make lab` is the Vietnamese edition: lab-settings/vi/ holds the same defaults
# and JupyterLab's language, "vi_VN" (the lab extra's language pack; a language the learner
# picks in Settings > Language still wins), and JupyterLab opens on lesson 00 in notebooks/vi/.
# JupyterLab stays rooted at notebooks/, which the lessons' links are written from. LABKIT_LANG
# is read as labkit reads it: its first two letters, in either case (vi, VI, vi_VN).
LAB_VI = $(filter vi% Vi% vI% VI%,$(LABKIT_LANG))
LAB_SETTINGS = $(CURDIR)/lab-settings$(if $(LAB_VI),/vi)
LAB_OPENS = $(if $(LAB_VI),--LabApp.default_url=/lab/tree/vi/00_start_here.ipynb)
lab: $(STAMP)
	$(BIN)/labkit server --optional -- $(BIN)/jupyter lab --notebook-dir notebooks --LabApp.app_settings_dir=$(LAB_SETTINGS) $(LAB_OPENS) $(LAB_AS_ROOT) $(ARGS)

# Exit status 0 when labkit and its required packages are in place, with or without a way to
# MongoDB or PostgreSQL (every lesson runs without a server); 1 when a requirement is missing or
# a server the environment names (LABKIT_MONGODB_URI, LABKIT_POSTGRES_DSN) cannot be used.
doctor: $(STAMP)
	$(BIN)/labkit doctor

# The test extra alone, without running anything: for a step that runs pytest by itself.
test-tools: $(TEST_STAMP)

# MongoDB's storage engine, embedded; builds from source: needs cmake, ninja, swig and a C
# and C++ compiler (environment.yml lists them; on Debian: apt-get install cmake ninja-build
# swig build-essential).
wiredtiger: $(STAMP)
	$(BIN)/python -m pip install -q -e '.[wiredtiger]'

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "labkit needs Python 3.11 or newer")'
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(if $(WHEELS),,$(BIN)/python -m pip install -q --upgrade pip)
	$(BIN)/python -m pip install -q -e '.[lab]' $(PIP_SOURCE)
	touch $(STAMP)

$(TEST_STAMP): $(STAMP) pyproject.toml
	$(BIN)/python -m pip install -q -e '.[test,lab]' $(PIP_SOURCE)
	touch $(TEST_STAMP)

# Every wheel `make lab` installs, and what building labkit itself needs (pyproject.toml's
# build-system requires: the editable install builds in an isolated environment, which pip
# fills from the same folder), for this machine's system, processor and Python; made with
# .venv's pip, which every Python that runs labkit has.
wheels: $(STAMP)
	$(BIN)/python -m pip wheel -q -w wheels '.[lab]' 'setuptools>=68'

clean:
	rm -rf $(VENV) reports .pytest_cache .hypothesis .mypy_cache .ruff_cache
