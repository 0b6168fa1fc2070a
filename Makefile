# The two commands a newcomer needs: `make demo` and `make test`. Both set up what is missing.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp

.PHONY: demo test lint typecheck schemas-check pytest bench setup browser clean

$(STAMP): pyproject.toml setup.py models/chat/_ngram.c models/chat/_tokens.c
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	@touch $(STAMP)

setup: $(STAMP)

AXE_VERSION := 4.14.1
AXE := $(VENV)/axe/node_modules/axe-core/axe.min.js

# Debian's chromium for the console's browser tests (never a browser download by a test tool), and
# axe-core from the npm registry for their accessibility checks.
browser: $(AXE)
	@if ! command -v chromium >/dev/null 2>&1; then \
	  if [ "$$(id -u)" = "0" ]; then \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null) \
	      || echo "warning: could not install Debian chromium; browser tests will be skipped"; \
	  else echo "note: chromium missing and not root; browser tests will be skipped"; fi; \
	fi

$(AXE):
	@if command -v npm >/dev/null 2>&1; then \
	  npm install --silent --no-audit --no-fund --prefix $(VENV)/axe axe-core@$(AXE_VERSION) >/dev/null \
	    || echo "warning: could not install axe-core; accessibility checks will be skipped"; \
	else echo "note: npm missing; accessibility checks will be skipped"; fi

demo: $(STAMP)
	$(BIN)/railbird demo

lint: $(STAMP)
	$(BIN)/ruff check .

typecheck: $(STAMP)
	$(BIN)/mypy pipeline models consumers api railbird simulator

schemas-check: $(STAMP)
	$(BIN)/railbird schemas --check

pytest: $(STAMP)
	$(BIN)/pytest

test: setup browser lint typecheck schemas-check pytest

bench: $(STAMP)
	$(BIN)/python -m bench.run_all
	$(BIN)/python -m bench._report

clean:
	rm -rf data build *.egg-info .pytest_cache .mypy_cache .ruff_cache
