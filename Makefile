# The two Quickstart commands: `make demo` and `make test`. Both build .venv from the package index first.
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
UV_VERSION := 0.13.9
STAMP := $(VENV)/.installed

# Our own modules are compiled once and the compiled files kept (in __pycache__, ignored by git), also where the
# environment sets PYTHONDONTWRITEBYTECODE: `make test` starts some twenty Python processes (workers, Airflow
# servers, `airflow dags test`, the demo), and each would compile src/ again (0.5 s of CPU), and each pytest worker
# would rewrite the test modules' asserts again (3.5 s of CPU; pytest keeps the rewritten modules only when it may
# write bytecode).
unexport PYTHONDONTWRITEBYTECODE

.PHONY: venv demo test lint typecheck pytest postgres graphviz fuzz mutation soak docs browser-test system-test test-matrix check-dist lock clean

# The venv gets no pip of its own (ensurepip takes 7 s of a 150 s `make test`): the pip of $(PYTHON) puts uv into
# it (`pip --python`, pip 22.3 and newer), and uv installs the rest. Where that pip is older or missing, the venv
# gets its own pip after all.
INSTALL_UV := $(PYTHON) -m pip --python $(BIN)/python install --quiet --disable-pip-version-check "uv==$(UV_VERSION)" \
	|| { $(BIN)/python -m ensurepip --default-pip >/dev/null \
	&& $(BIN)/python -m pip install --quiet --disable-pip-version-check "uv==$(UV_VERSION)"; }

$(BIN)/python:
	$(PYTHON) -m venv --without-pip $(VENV)

$(STAMP): setup.cfg pyproject.toml requirements/constraints.txt | $(BIN)/python
	$(INSTALL_UV)
	$(BIN)/uv pip install --quiet --python $(BIN)/python -c requirements/constraints.txt -e ".[test]"
	@# The editable build leaves src/*.egg-info beside the package; on sys.path it is a second copy of our
	@# distribution, and Airflow would load the callback plugin twice ("already registered, skipping").
	rm -rf src/*.egg-info
	touch $(STAMP)

# Bytecode of the installed modules the suite's processes import (scripts/compile_imports.py, by importing them):
# without it each of them compiles Airflow again (`import airflow` 3.8 s of CPU instead of 1.9 s), three pytest
# workers side by side. Compiling the whole venv (`uv pip install --compile-bytecode`) would cost twice the CPU, on the
# way of every `make test`; this runs beside mypy. Lint and mypy need only the installed venv.
# Beside it, scripts/rewrite_asserts.py rewrites the test modules' asserts once, where pytest keeps them: on a clean
# clone the three workers would each do it while collecting (2.4 s of CPU each).
COMPILED := $(VENV)/.compiled
$(COMPILED): $(STAMP) scripts/compile_imports.py scripts/rewrite_asserts.py
	$(BIN)/python scripts/rewrite_asserts.py & rewriting=$$!; $(BIN)/python scripts/compile_imports.py && wait $$rewriting
	touch $(COMPILED)

venv: $(STAMP) $(COMPILED)

# `make demo AIRFLOW_VERSION=3.1` runs the examples on another supported Airflow (its venv under build/matrix/).
AIRFLOW_VERSION ?=
demo: venv
ifeq ($(AIRFLOW_VERSION),)
	$(BIN)/python scripts/demo.py
else
	$(BIN)/python scripts/airflow_matrix.py demo $(AIRFLOW_VERSION)
endif

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

MYPY_NICE ?=
typecheck: $(STAMP)
	$(MYPY_NICE) $(BIN)/mypy

# Three workers (pytest-xdist) on two cores: a third of the suite's wall time is waiting (schedules that take seconds,
# servers starting), which the third worker fills. The tests that share a session resource (the Airflow API server,
# the demo) run on one worker (their xdist_group). A plain `pytest path/to/test.py` stays in one process.
PYTEST_WORKERS ?= 3
pytest: venv postgres
	@$(MAKE) --no-print-directory graphviz
	$(BIN)/pytest -n $(PYTEST_WORKERS) --dist loadgroup

# The callback receiver's tests also run against a real PostgreSQL 15 server they start and stop themselves
# (Debian's package; installed here when missing and we are root).
postgres:
	@[ -x /usr/lib/postgresql/15/bin/pg_ctl ] || { [ "$$(id -u)" = 0 ] && apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null; } || { echo "the callback tests need Debian's postgresql package (apt-get install postgresql)"; exit 1; }

# The docs' diagrams are drawn at build time by Graphviz's `dot` (Debian's package; installed here when missing and we
# are root). `make docs` and the suite's docs build (tests/integration/test_docs.py) need it. Targets that also need
# postgres make it in their recipe, after postgres: under `make -j2` two apt-get runs would fight over dpkg's lock.
graphviz:
	@command -v dot >/dev/null || { [ "$$(id -u)" = 0 ] && apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq graphviz >/dev/null; } || { echo "the docs build needs Graphviz's dot, from Debian's graphviz package (apt-get install graphviz)"; exit 1; }

# Lint first (a second); then mypy beside the suite, at the lowest CPU priority: its 20 s of one core go into the
# moments the suite's workers wait (servers starting, schedules that take seconds) instead of slowing them down, and
# first into the core that compiling the imports (the suite's prerequisite) leaves free.
test: lint
	@$(MAKE) --no-print-directory -j2 typecheck pytest MYPY_NICE="nice -n 19"

# The property-based tests with 20 times `make test`'s example budget: every receiver property over SQLite and
# PostgreSQL, and every operation's path and query values (docs/reliability.md has the figures).
FUZZ_TESTS := tests/callbacks/test_receiver_properties.py tests/client/test_path_values.py
fuzz: venv postgres
	HYPOTHESIS_PROFILE=long $(BIN)/pytest -q -p no:cacheprovider --hypothesis-show-statistics $(FUZZ_TESTS)

# Mutation testing with mutmut (docs/mutation.md): the client, the waiting code and the callback receiver are mutated
# in a copy under mutants/, and the fast tests that call them run against each mutant, two at a time. Prints the
# counts and the survivors (also in build/mutation/survivors.txt); survivors do not fail it, a failed run does.
# `make mutation MUTATION_ARGS="--keep 'messaging_platform_provider.client.retry.*'"` re-runs some mutants.
MUTATION_ARGS ?=
mutation: venv
	$(BIN)/python scripts/mutation.py $(MUTATION_ARGS)

# `make test` SOAK_RUNS times in a row on a clean clone of HEAD while another clone runs `make test` over and over
# beside it (both cores busy); a line per run, a table at the end, exit 1 if any run failed (docs/testing.md).
SOAK_RUNS ?= 5
soak: venv
	$(BIN)/python scripts/soak.py --runs $(SOAK_RUNS)

# The connection form in headless Chromium (Debian's package; installed here when missing and we are root).
browser-test: venv
	@command -v chromium >/dev/null || { [ "$$(id -u)" = 0 ] && apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; } || { echo "browser-test needs Debian's chromium package (apt-get install chromium)"; exit 1; }
	$(BIN)/pytest -m browser tests/integration/browser

# Scenarios against a real multi-process Airflow deployment on loopback (PostgreSQL, the emulator, API server,
# scheduler, DAG processor, triggerer), through Airflow's REST API; a table of results, run folder under build/.
system-test: venv postgres
	$(BIN)/pytest -p no:randomly -p no:cacheprovider -m system tests/integration/system -s --tb=short

# Every supported Airflow (3.0-3.3): the sdist and wheel pass `twine check`, then the whole suite runs in a fresh venv
# per version holding the built wheel and that version's pins (requirements/); two versions run side by side, each
# printing its outcome as it ends, and a table of the outcomes at the end. `make test-matrix MATRIX_VERSIONS="3.0 3.1"`
# runs some of them.
MATRIX_VERSIONS ?=
test-matrix: venv postgres
	@$(MAKE) --no-print-directory graphviz
	$(BIN)/python scripts/airflow_matrix.py check-dist
	$(BIN)/python scripts/airflow_matrix.py matrix $(MATRIX_VERSIONS)

check-dist: venv
	$(BIN)/python scripts/airflow_matrix.py check-dist

# The docs site, warnings as errors (the test suite builds it too).
docs: venv graphviz
	$(BIN)/sphinx-build -q -W --keep-going -b html docs build/docs
	@echo "Docs: build/docs/index.html"

# Re-pin every dependency after changing setup.cfg (run by hand, commit the result): one file per supported Airflow,
# each as resolved on the day after that release (requirements/constraints.txt is the newest, used by `make test`).
lock: $(BIN)/python
	$(INSTALL_UV)
	$(BIN)/python scripts/airflow_matrix.py lock

clean:
	rm -rf $(VENV) build .mypy_cache .ruff_cache .pytest_cache
