# Two commands do all set-up on a fresh machine: `make run` (the whole service locally) and `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp
PYTEST_ARGS ?=

.PHONY: install run test lint unit integration bench redrive clean dashboard dashboard-test e2e chromium

# The dashboard (dashboard/, Node 20.19+ and npm): dependencies from the committed lock file, built by Vite into
# functions/api/static (git-ignored), which the API serves at /. Both steps are skipped when nothing changed.
DASHBOARD_STAMP := dashboard/node_modules/.installed-stamp
DASHBOARD_BUILD := functions/api/static/index.html
DASHBOARD_SOURCES := $(shell find dashboard/src -type f -not -path '*/__tests__/*' -not -path 'dashboard/src/test/*' 2>/dev/null) dashboard/index.html dashboard/vite.config.ts \
	dashboard/tsconfig.json
# Browser tests drive Debian's chromium by its path (Playwright's own browser download does not work here).
CHROMIUM ?= /usr/bin/chromium

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

$(DASHBOARD_STAMP): dashboard/package.json dashboard/package-lock.json
	@command -v npm >/dev/null || { echo "npm not found: install Node.js 20.19+ (with npm) to build the dashboard"; exit 1; }
	cd dashboard && npm ci --no-audit --no-fund
	touch $@

$(DASHBOARD_BUILD): $(DASHBOARD_STAMP) $(DASHBOARD_SOURCES)
	cd dashboard && npm run build

## Build the dashboard (served by the API at /).
dashboard: $(DASHBOARD_BUILD)

## Install Debian's chromium for the browser tests when it is missing (needs root, as in CI).
chromium:
	@test -x $(CHROMIUM) || { \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; \
	  else echo "no chromium at $(CHROMIUM): run 'sudo apt-get install -y chromium' or set CHROMIUM=/path"; exit 1; fi; }

## Start PostgreSQL, local SQS/DynamoDB, the API on http://127.0.0.1:$${PORT:-8000} and the scoring worker.
run: install dashboard
	$(PY) -m devstack

lint: install
	$(VENV)/bin/ruff check layers functions migrations devstack tests
	$(VENV)/bin/mypy

## Lint, type-check and run every test suite (unit, integration) with coverage of the core.
test: lint
	$(PY) -m pytest tests/unit tests/integration --cov --cov-report=term --cov-fail-under=80 $(PYTEST_ARGS)
	$(MAKE) dashboard-test e2e

## Dashboard component tests (Vitest + Testing Library).
dashboard-test: $(DASHBOARD_STAMP)
	cd dashboard && npm test

## Browser tests: headless Chromium against a local stack the tests start (screenshots in tests/e2e/screenshots/).
e2e: install dashboard chromium
	CHROMIUM_PATH=$(CHROMIUM) $(PY) -m pytest tests/e2e $(PYTEST_ARGS)

unit: install
	$(PY) -m pytest tests/unit $(PYTEST_ARGS)

integration: install
	$(PY) -m pytest tests/integration $(PYTEST_ARGS)

## Benchmarks: print timings, assert nothing about speed.
bench: install
	$(PY) -m pytest tests/benchmarks -s -m benchmark $(PYTEST_ARGS)

## Show the dead-letter queue and move its messages back to the scoring queue.
redrive: install
	$(PY) -m session_scoring.cli redrive

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .coverage .aws-sam dashboard/node_modules functions/api/static
