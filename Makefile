# The two commands a newcomer needs: `make run` and `make test`. Both set everything up first.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: run test lint bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

# The app with its demo worker (TensorFlow is a worker-only dependency).
$(VENV)/.run-installed: pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e '.[worker]'
	touch $@

$(VENV)/.dev-installed: pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e '.[worker,dev]'
	touch $@ $(VENV)/.run-installed

run: $(VENV)/.run-installed
	$(BIN)/tiercards serve --host $(HOST) --port $(PORT)

test: $(VENV)/.dev-installed
	bash scripts/install-system-deps.sh
	bash scripts/install-oidc-provider.sh
	$(BIN)/python -m pytest

lint: $(VENV)/.dev-installed
	$(BIN)/ruff check app tests bench migrations
	$(BIN)/ruff format --check app tests bench migrations
	$(BIN)/mypy

bench: $(VENV)/.dev-installed
	bash scripts/run-benchmarks.sh

clean:
	rm -rf $(VENV) *.egg-info
