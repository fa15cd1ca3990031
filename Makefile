# The two Quickstart commands: `make demo` and `make test`. Both build .venv from the package index first.
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
UV_VERSION := 0.13.9
STAMP := $(VENV)/.installed

.PHONY: venv demo test lint typecheck pytest postgres fuzz docs browser-test system-test lock clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(STAMP): setup.cfg pyproject.toml requirements/constraints.txt | $(BIN)/python
	$(BIN)/python -m pip install --quiet --disable-pip-version-check "uv==$(UV_VERSION)"
	$(BIN)/uv pip install --quiet --python $(BIN)/python -c requirements/constraints.txt -e ".[test]"
	@# The editable build leaves src/*.egg-info beside the package; on sys.path it is a second copy of our
	@# distribution, and Airflow would load the callback plugin twice ("already registered, skipping").
	rm -rf src/*.egg-info
	touch $(STAMP)

venv: $(STAMP)

demo: venv
	$(BIN)/python scripts/demo.py

lint: venv
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: venv
	$(BIN)/mypy

pytest: venv postgres
	$(BIN)/pytest

# The callback receiver's tests also run against a real PostgreSQL 15 server they start and stop themselves
# (Debian's package; installed here when missing and we are root).
postgres:
	@[ -x /usr/lib/postgresql/15/bin/pg_ctl ] || { [ "$$(id -u)" = 0 ] && apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null; } || { echo "the callback tests need Debian's postgresql package (apt-get install postgresql)"; exit 1; }

test: lint typecheck pytest

# The property-based tests with 20 times `make test`'s example budget: every receiver property over SQLite and
# PostgreSQL, and every operation's path and query values (docs/reliability.md has the figures).
FUZZ_TESTS := tests/callbacks/test_receiver_properties.py tests/provider/test_path_values.py
fuzz: venv postgres
	HYPOTHESIS_PROFILE=long $(BIN)/pytest -q -p no:cacheprovider --hypothesis-show-statistics $(FUZZ_TESTS)

# The connection form in headless Chromium (Debian's package; installed here when missing and we are root).
browser-test: venv
	@command -v chromium >/dev/null || { [ "$$(id -u)" = 0 ] && apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; } || { echo "browser-test needs Debian's chromium package (apt-get install chromium)"; exit 1; }
	$(BIN)/pytest -m browser tests/browser

# Scenarios against a real multi-process Airflow deployment on loopback (PostgreSQL, the emulator, API server,
# scheduler, DAG processor, triggerer), through Airflow's REST API; a table of results, run folder under build/.
system-test: venv postgres
	$(BIN)/pytest -p no:randomly -p no:cacheprovider -m system tests/system -s --tb=short

# The docs site, warnings as errors (the test suite builds it too).
docs: venv
	$(BIN)/sphinx-build -q -W --keep-going -b html docs build/docs
	@echo "Docs: build/docs/index.html"

# Re-pin every dependency after changing setup.cfg (run by hand, commit the result).
lock: $(BIN)/python
	$(BIN)/python -m pip install --quiet "uv==$(UV_VERSION)"
	$(BIN)/uv pip compile --quiet --universal --python-version 3.10 setup.cfg --extra test -o requirements/constraints.txt

clean:
	rm -rf $(VENV) build .mypy_cache .ruff_cache .pytest_cache
