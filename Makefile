# Two commands do all set-up on a fresh machine: `make run` (the whole service locally) and `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp
PYTEST_ARGS ?=

.PHONY: install run test lint unit integration bench redrive clean

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

## Start PostgreSQL, local SQS/DynamoDB, the API on http://127.0.0.1:$${PORT:-8000} and the scoring worker.
run: install
	$(PY) -m devstack

lint: install
	$(VENV)/bin/ruff check layers functions migrations devstack tests
	$(VENV)/bin/mypy

## Lint, type-check and run every test suite (unit, integration) with coverage of the core.
test: lint
	$(PY) -m pytest tests/unit tests/integration --cov --cov-report=term --cov-fail-under=80 $(PYTEST_ARGS)

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
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .coverage .aws-sam
