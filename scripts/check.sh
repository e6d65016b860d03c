#!/usr/bin/env bash
# The whole check, `make test`: the system packages the tests need, the suite on SQLite, the
# storage tests again on PostgreSQL, then the images and compose.yaml on a Docker engine.
#
# Every stage runs even when one before it failed, so one red run says everything that is red; the
# check fails when any stage failed. At the end it prints each stage's wall time, and each pytest
# stage prints its 25 slowest tests: where the budget goes, at a glance.
#
#   PYTEST_WORKERS  pytest-xdist workers per pytest stage (default 4: the suite waits on servers,
#                   browsers and children more than it computes, so two cores keep four busy)
#   STAGES          the stages to run, of: packages sqlite postgres containers (default all)
set -uo pipefail
cd "$(dirname "$0")/.."

workers="${PYTEST_WORKERS:-4}"
stages="${STAGES:-packages sqlite postgres containers}"
pytest=(.venv/bin/python -m pytest -n "$workers" --dist loadscope --durations=25)
names=()
times=()
results=()
failed=0

stage() {
  local name="$1"
  shift
  case " $stages " in *" $name "*) ;; *) return 0 ;; esac
  echo "=== stage $name: $*"
  local began=$SECONDS status=0
  "$@" || status=$?
  names+=("$name")
  times+=($((SECONDS - began)))
  if [ "$status" -eq 0 ]; then results+=(passed); else results+=("FAILED ($status)"); failed=1; fi
  echo "=== stage $name: $((SECONDS - began)) s, ${results[-1]}"
}

summary() {
  local total=0 i
  echo
  echo "stage        wall time   result"
  for i in "${!names[@]}"; do
    printf '%-12s %6d s    %s\n' "${names[$i]}" "${times[$i]}" "${results[$i]}"
    total=$((total + times[i]))
  done
  printf '%-12s %6d s\n' "total" "$total"
}
trap summary EXIT

packages() {
  bash scripts/install-system-deps.sh && bash scripts/install-npm-packages.sh
}

stage packages packages
stage sqlite "${pytest[@]}"
# The tests marked engine_agnostic (tests/engines.py) ran above and are left out here.
stage postgres env TIERCARDS_TEST_DATABASE=postgres "${pytest[@]}"
stage containers bash scripts/container-check.sh
exit "$failed"
