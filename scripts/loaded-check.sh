#!/usr/bin/env bash
# The suite on a busy machine, to find the tests that fail only under load: stress-ng keeps every
# core busy beside it for the whole run. First the whole suite once on SQLite, then the browser,
# speech, load and server tests ROUNDS times in a row. Stops at the first failing run.
#
#   ROUNDS          how many times the busy-prone tests run after the whole suite (default 3)
#   WHOLE           0 leaves out the whole suite's run (default 1)
#   STRESS_CPUS     stress-ng's CPU workers (default: one a core)
#   PYTEST_WORKERS  as in scripts/check.sh (default 4)
set -euo pipefail
cd "$(dirname "$0")/.."
command -v stress-ng >/dev/null 2>&1 || {
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq stress-ng >/dev/null
}
# What the tests need besides the venv (chromium, nginx, axe-core, the OpenID provider...), as
# `make test` installs it.
bash scripts/install-system-deps.sh && bash scripts/install-npm-packages.sh
rounds="${ROUNDS:-3}"
pytest=(.venv/bin/python -m pytest -n "${PYTEST_WORKERS:-4}" --dist loadscope -q -p no:cacheprovider)
# The tests that drive browsers, the speech model, real servers, workers and child processes.
busy_prone=(
  tests/browser tests/speech tests/demos/live tests/worker
  tests/web/test_under_load.py tests/web/test_replicas.py tests/web/test_database_restart.py
  tests/web/test_operations.py tests/transfer/test_import_at_scale.py
  tests/accounts/test_sign_in_throttle.py tests/accounts/test_nginx_proxy.py
  tests/deploy/test_start_scripts.py tests/deploy/test_slow_clients.py
)

stress-ng --cpu "${STRESS_CPUS:-$(nproc)}" --timeout 0 --quiet &
stress=$!
trap 'kill "$stress" 2>/dev/null; wait "$stress" 2>/dev/null' EXIT

if [ "${WHOLE:-1}" != 0 ]; then
  began=$SECONDS
  echo "=== the whole suite, beside stress-ng --cpu ${STRESS_CPUS:-$(nproc)}"
  "${pytest[@]}"
  echo "=== whole suite: $((SECONDS - began)) s"
fi
for round in $(seq "$rounds"); do
  began=$SECONDS
  echo "=== busy-prone tests, round $round of $rounds"
  "${pytest[@]}" "${busy_prone[@]}"
  echo "=== round $round: $((SECONDS - began)) s"
done
