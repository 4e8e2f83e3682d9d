# Two commands do all set-up on a fresh machine: `make run` (the whole service locally) and `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp
PYTEST_ARGS ?=
# Processes `make test` runs the unit and integration suites in (pytest-xdist, a test file per process at a time: each
# process has its own PostgreSQL, moto and fake servers). 1 runs them in this process.
PYTEST_WORKERS ?= 2
# 1: `make test` also runs the short fuzz campaign (`make fuzz-short`, about a minute); 0 leaves it out.
FUZZ_IN_TEST ?= 1
# 1: `make test` also runs the round trip against real Phoenix and MLflow servers (`make trace-stores`: 2-4 minutes,
# the stores' install included); 0 leaves it out.
TRACE_STORES_IN_TEST ?= 1

.PHONY: install run test lint unit integration bench soak recovery redrive clean dashboard dashboard-test e2e chromium
.PHONY: tools template-lint build smoke lock-layers docs api-types deadcode
.PHONY: seed cli fuzz fuzz-short trace-stores

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

## Demo scores in `make run`'s database (two criteria, four agents, six weeks, missing tools) for the Analytics
## charts: `make seed` (300 scores) or `make seed SCORES=600`. Works whether or not the stack is running.
seed: install
	$(PY) -m devstack seed --scores $(or $(SCORES),300)

## The operator CLI with `make run`'s settings (its database and judge): `make cli ARGS="export training --out t.jsonl"`.
cli: install
	$(PY) -m devstack cli $(ARGS)

lint: install
	$(VENV)/bin/ruff check layers functions migrations devstack tests scripts
	$(VENV)/bin/ruff format --check layers functions migrations devstack tests scripts
	$(VENV)/bin/mypy
	$(VENV)/bin/lint-imports
	$(MAKE) --no-print-directory deadcode

## Unused code (vulture; paths and options in pyproject.toml, framework-used names in vulture_whitelist.py).
deadcode: install
	$(VENV)/bin/vulture

## Lint, type-check and run every test suite (unit, integration) with coverage of the core; build the docs; then lint
## the SAM template, build it (no container) and smoke-test the built handlers.
test: lint template-lint
	$(PY) -m pytest tests/unit tests/integration -n $(PYTEST_WORKERS) --dist loadfile \
		--cov --cov-report=term --cov-fail-under=80 $(PYTEST_ARGS)
	$(MAKE) --no-print-directory docs ENV_TABLE_ARGS=--check
	$(MAKE) dashboard-test e2e
	$(MAKE) --no-print-directory smoke
	@if [ "$(FUZZ_IN_TEST)" = 1 ]; then $(MAKE) --no-print-directory fuzz-short; \
	else echo "make test: the short fuzz campaign was left out (FUZZ_IN_TEST=0)"; fi
	@if [ "$(TRACE_STORES_IN_TEST)" = 1 ]; then $(MAKE) --no-print-directory trace-stores; \
	else echo "make test: the trace-store round trip was left out (TRACE_STORES_IN_TEST=0)"; fi

## The docs site (docs/, mkdocs.yml): regenerate the environment table of docs/configuration.md from Settings, then
## build into site/ in strict mode (a broken link or anchor fails). `make test` only checks the table is up to date.
ENV_TABLE_ARGS ?=
docs: install
	$(PY) scripts/env_table.py $(ENV_TABLE_ARGS)
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict

## Dashboard component tests (Vitest + Testing Library).
dashboard-test: $(DASHBOARD_STAMP)
	cd dashboard && npm test

## Regenerate the dashboard's API types: export the API's OpenAPI document to dashboard/openapi.json, then generate
## dashboard/src/api/generated/ from it (openapi-typescript). Tests fail until both are regenerated and committed.
api-types: install $(DASHBOARD_STAMP)
	$(PY) -m functions.api.export_openapi dashboard/openapi.json
	cd dashboard && npm run api-types

## Browser tests: headless Chromium against a local stack the tests start (screenshots in tests/e2e/screenshots/).
e2e: install dashboard chromium
	CHROMIUM_PATH=$(CHROMIUM) $(PY) -m pytest tests/e2e $(PYTEST_ARGS)

unit: install
	$(PY) -m pytest tests/unit $(PYTEST_ARGS)

integration: install
	$(PY) -m pytest tests/integration $(PYTEST_ARGS)

## Benchmarks: print timings, assert nothing about speed. The dashboard's first load runs in chromium on the built
## dashboard, so both are prepared first.
bench: install dashboard chromium
	CHROMIUM_PATH=$(CHROMIUM) $(PY) -m pytest tests/benchmarks --capture=sys -m benchmark $(PYTEST_ARGS)

## Soak: 5,000 jobs (800 of them from four capped scoring runs, one cancelled) through the local stack under random
## faults (SOAK_JOBS, SOAK_WORKERS, SOAK_LARGE_RUN); prints summary lines for the jobs and the runs.
soak: install
	$(PY) -m pytest tests/soak -s -m soak -p no:cacheprovider $(PYTEST_ARGS)

## Recovery: `python -m devstack` killed hard while an attempt is in progress and restarted with the default settings;
## prints how long after the kill the attempt was completed (fails past 3 minutes). About 2 minutes; not in make test.
recovery: install
	$(PY) -m pytest tests/recovery -s -m recovery -p no:cacheprovider $(PYTEST_ARGS)

## Fuzz campaign (at most 10 minutes): a local stack on loopback under schemathesis (every check, every phase) and a
## hostile corpus on every route, each request followed by a canary read; ends with
## `fuzz: requests N, 5xx 0, wrong answers 0, stored on error 0` and fails otherwise (FUZZ_SECONDS, FUZZ_REQUESTS).
fuzz: install
	$(PY) -m tests.fuzz

## The same campaign, short (about 2 minutes, FUZZ_REQUESTS=1500): every named hostile case, a share of the rest.
fuzz-short: install
	$(PY) -m pytest tests/fuzz -s -m fuzz -p no:cacheprovider $(PYTEST_ARGS)
## Real Arize Phoenix and MLflow servers (from PyPI, in a venv of their own: .local/trace-stores-venv, pins in
## requirements-trace-stores.txt): agents' traces sent with the stores' own clients, listed and scored by the service,
## the verdicts written back and read back with the stores' clients; prints one summary line. `make test` runs it last
## (TRACE_STORES_IN_TEST=0 leaves it out; the first run installs the stores, about two minutes; see docs/development.md).
TRACE_STORES_VENV := .local/trace-stores-venv
TRACE_STORES_STAMP := $(TRACE_STORES_VENV)/.installed-stamp

$(TRACE_STORES_STAMP): requirements-trace-stores.txt
	test -x $(TRACE_STORES_VENV)/bin/python || $(PYTHON) -m venv $(TRACE_STORES_VENV)
	$(TRACE_STORES_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(TRACE_STORES_VENV)/bin/python -m pip install --quiet -r requirements-trace-stores.txt
	touch $@

trace-stores: install $(TRACE_STORES_STAMP)
	TRACE_STORES_PYTHON=$(CURDIR)/$(TRACE_STORES_VENV)/bin/python \
		$(PY) -m pytest tests/trace_stores -s -m trace_stores -p no:cacheprovider $(PYTEST_ARGS)

## Show the dead-letter queue and move its messages back to the scoring queue.
redrive: install
	$(PY) -m session_scoring.entrypoints.cli redrive

## ---- AWS SAM: deployment tooling, template lint, build, smoke test of the build ----
TOOLS := .tools
TOOLS_STAMP := $(TOOLS)/.installed-stamp
# checkov has a venv of its own inside .tools (its boto3 pin conflicts with aws-sam-cli's).
CHECKOV_VENV := $(TOOLS)/checkov
CHECKOV_STAMP := $(CHECKOV_VENV)/.installed-stamp
SAM := $(TOOLS)/bin/sam
# The functions' runtime (template.yaml Globals). sam build and the smoke test need this interpreter; with pyenv
# (where python3.12 is installed but not on PATH) the newest 3.12 it has is used. Override: make LAMBDA_PYTHON=...
LAMBDA_RUNTIME := python3.12
ifndef LAMBDA_PYTHON
LAMBDA_PYTHON := $(shell (PYENV_VERSION=$$(pyenv versions --bare 2>/dev/null | grep -E '^3\.12(\.|$$)' | tail -1) \
	$(LAMBDA_RUNTIME) -c 'import sys; print(sys.executable)') 2>/dev/null)
endif
SAM_ENV := SAM_CLI_TELEMETRY=0 AWS_DEFAULT_REGION=$${AWS_DEFAULT_REGION:-us-east-1} PATH="$(dir $(LAMBDA_PYTHON)):$$PATH"

$(TOOLS_STAMP): requirements-deploy.txt
	test -x $(TOOLS)/bin/python || $(PYTHON) -m venv $(TOOLS)
	$(TOOLS)/bin/python -m pip install --quiet --upgrade pip
	$(TOOLS)/bin/python -m pip install --quiet -r requirements-deploy.txt
	touch $(TOOLS_STAMP)

$(CHECKOV_STAMP): requirements-checkov.txt
	test -x $(CHECKOV_VENV)/bin/python || $(PYTHON) -m venv $(CHECKOV_VENV)
	$(CHECKOV_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(CHECKOV_VENV)/bin/python -m pip install --quiet -r requirements-checkov.txt
	touch $(CHECKOV_STAMP)

## aws-sam-cli and cfn-lint in .tools/, checkov in .tools/checkov/ (each installed once).
tools: $(TOOLS_STAMP) $(CHECKOV_STAMP)

## cfn-lint with its informational checks (e.g. a stateful resource without DeletionPolicy/UpdateReplacePolicy) and
## `sam validate --lint` on template.yaml, then checkov: any finding not in checkov-skips.yaml fails.
template-lint: tools
	$(TOOLS)/bin/cfn-lint --include-checks I -- template.yaml
	$(SAM_ENV) $(SAM) validate --lint
	$(CHECKOV_VENV)/bin/python scripts/checkov_gate.py --checkov $(CHECKOV_VENV)/bin/checkov

## `sam build` without a container (the API function ships the built dashboard), then byte-compile the build for the
## runtime (a cold start then skips compiling).
build: tools dashboard
	@test -n "$(LAMBDA_PYTHON)" || { echo "error: no $(LAMBDA_RUNTIME) found (install it, or make LAMBDA_PYTHON=/path/to/$(LAMBDA_RUNTIME))" >&2; exit 1; }
	$(SAM_ENV) $(SAM) build --cached --parallel
	$(LAMBDA_PYTHON) -m compileall -q -f --invalidation-mode unchecked-hash .aws-sam/build > /dev/null

## Invoke the built handlers with events/ on the runtime's Python against local PostgreSQL, moto and the fake judge.
smoke: install build
	SCORING_LAMBDA_PYTHON=$(LAMBDA_PYTHON) $(PY) -m pytest tests/smoke -s $(PYTEST_ARGS)

## Re-pin layers/*/requirements.txt from their requirements.in for the Lambda runtime.
lock-layers:
	$(LAMBDA_PYTHON) layers/lock_requirements.py

clean:
	rm -rf $(VENV) $(TOOLS) .pytest_cache .mypy_cache .ruff_cache .coverage .aws-sam dashboard/node_modules \
		functions/api/static site
