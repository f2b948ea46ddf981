# The two commands of the README: `make demo` and `make test`. Both set everything up first.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: setup demo test lint schemas bench fuzz

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# The stamp makes `make setup` a no-op until pyproject.toml or the setup script changes (the editable
# install follows source edits by itself); delete it, or the venv, to force a fresh setup.
STAMP := $(VENV)/.abw-setup-done

setup: $(STAMP)

$(STAMP): $(BIN)/python pyproject.toml scripts/setup.sh
	bash scripts/setup.sh $(BIN)
	touch $@

demo: setup
	$(BIN)/abw demo

test: setup
	$(BIN)/ruff check .
	$(BIN)/python -m pytest -q

lint: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/actionlint .github/workflows/*.yml
	$(BIN)/zizmor --offline --no-progress .github/workflows

schemas: setup
	$(BIN)/python -m abw.models.registry schemas

bench: setup
	$(BIN)/python benchmarks/run_all.py

fuzz: setup
	$(BIN)/python -m pip install --quiet atheris
	$(BIN)/python fuzz/run.py
