# The two Quickstart commands: `make demo` and `make test`. Both build .venv from the package index first.
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
UV_VERSION := 0.13.9
STAMP := $(VENV)/.installed

.PHONY: venv demo test lint typecheck pytest postgres graphviz redis fuzz mutation soak docs browser-test system-test test-matrix check-dist lock clean

# uv (pinned) installs the pinned dependencies: pip takes several minutes to resolve Airflow's.
$(STAMP): setup.cfg pyproject.toml requirements/constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check "uv==$(UV_VERSION)"
	$(BIN)/uv pip install --quiet --python $(BIN)/python -c requirements/constraints.txt -e ".[test]"
	@# The editable build leaves src/*.egg-info beside the package; on sys.path it is a second copy of our
	@# distribution, and Airflow would load the callback plugin twice ("already registered, skipping").
	rm -rf src/*.egg-info
	touch $(STAMP)

venv: $(STAMP)

# `make demo AIRFLOW_VERSION=3.1` runs the examples on another supported Airflow (its venv under build/matrix/).
AIRFLOW_VERSION ?=
demo: venv
ifeq ($(AIRFLOW_VERSION),)
	$(BIN)/python scripts/demo.py
else
	$(BIN)/python scripts/airflow_matrix.py demo $(AIRFLOW_VERSION)
endif

# ruff, mypy, then the whole suite.
test: lint typecheck pytest

lint: venv
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: venv
	$(BIN)/mypy

# pytest-xdist: three workers on two cores, since much of the suite waits (servers starting, schedules that take
# seconds). Tests that share a session resource (the Airflow API server, the docs build) carry an xdist_group
# marker, and `--dist loadgroup` runs each group on one worker. A plain `pytest path/to/test.py` stays in one process.
PYTEST_WORKERS ?= 3
pytest: venv postgres graphviz
	$(BIN)/pytest -n $(PYTEST_WORKERS) --dist loadgroup

# The callback receiver's tests also run against a real PostgreSQL 15 server they start and stop themselves
# (Debian's package; installed here when missing and we are root).
postgres:
	@[ -x /usr/lib/postgresql/15/bin/pg_ctl ] || { [ "$$(id -u)" = 0 ] && apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null; } || { echo "the callback tests need Debian's postgresql package (apt-get install postgresql)"; exit 1; }

# The docs' diagrams are drawn at build time by Graphviz's `dot` (Debian's package; installed here when missing and we
# are root). `make docs` and the suite's docs build (tests/integration/test_docs.py) need it.
graphviz:
	@command -v dot >/dev/null || { [ "$$(id -u)" = 0 ] && apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq graphviz >/dev/null; } || { echo "the docs build needs Graphviz's dot, from Debian's graphviz package (apt-get install graphviz)"; exit 1; }

# The CeleryExecutor system test's broker is Debian's redis-server, started by the test on a free port (installed
# here when missing and we are root; the package's own service is not used).
redis:
	@command -v redis-server >/dev/null || { [ "$$(id -u)" = 0 ] && apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server >/dev/null; } || { echo "make system-test EXECUTOR=celery needs Debian's redis-server package (apt-get install redis-server)"; exit 1; }

# The property-based tests with 20 times `make test`'s example budget: every receiver property over SQLite and
# PostgreSQL, and every operation's path and query values (docs/reliability.md has the figures).
FUZZ_TESTS := tests/callbacks/test_receiver_properties.py tests/client/test_path_values.py
fuzz: venv postgres
	HYPOTHESIS_PROFILE=long $(BIN)/pytest -q -p no:cacheprovider --hypothesis-show-statistics $(FUZZ_TESTS)

# Mutation testing with mutmut (docs/mutation.md): the modules of [tool.mutmut] in pyproject.toml are mutated in a
# copy under mutants/, and the fast tests that call them run against each mutant. Prints the counts and the
# survivors (also in build/mutation/survivors.txt); survivors do not fail it, a failed run does. Not run by CI.
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
# `make system-test EXECUTOR=celery`: the CeleryExecutor deployment instead (Redis, two Celery workers without the
# metadata database, two triggerers, two API servers; tests/integration/system/system_celery.py).
EXECUTOR ?= local
system-test: venv postgres $(if $(filter celery,$(EXECUTOR)),redis)
	MESSAGING_PLATFORM_SYSTEM_EXECUTOR=$(EXECUTOR) $(BIN)/pytest -p no:randomly -p no:cacheprovider -m system tests/integration/system -s --tb=short

# Every supported Airflow (3.0-3.3) and the 3.4 preview (3.4.0b2): the sdist and wheel pass `twine check`, then the
# whole suite runs in a fresh venv per version holding the built wheel and that version's pins (requirements/); two
# versions run side by side, each printing its outcome as it ends, and a table of the outcomes at the end.
# `make test-matrix MATRIX_VERSIONS="3.0 3.1"` runs some of them.
MATRIX_VERSIONS ?=
test-matrix: venv graphviz
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
lock: venv
	$(BIN)/python scripts/airflow_matrix.py lock

clean:
	rm -rf $(VENV) build .mypy_cache .ruff_cache .pytest_cache
