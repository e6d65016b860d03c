#!/usr/bin/env bash
# Every benchmark under bench/, one after another (they would disturb each other if run together):
# each bench/[a-z]*.py with a __main__ block (the others are helpers they import or hand to a load
# tool). A failed one does not stop the rest; a summary line each at the end, and exit 1 if any
# failed (bench/_verdict.py: a benchmark exits 1 when any of its verdicts is FAIL).
set -uo pipefail
cd "$(dirname "$0")/.."
command -v wrk >/dev/null 2>&1 || {
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq wrk >/dev/null
} || { echo "could not install wrk, which the page and write benchmarks drive" >&2; exit 1; }

NO_GPU=3  # bench/gpu_check.py's exit status on a host without a GPU (its NO_GPU)
summary=()
failed=0
for file in bench/[a-z]*.py; do
  grep -q '^if __name__ == "__main__":' "$file" || continue
  name=$(basename "$file" .py)
  echo "== $file"
  started=$SECONDS
  args=()
  # The embedding models it compares install beside the project, not into its venv (see its
  # docstring); here it measures the method the app ships.
  [ "$name" = coverage_methods ] && args=(--methods lexical)
  .venv/bin/python -m "bench.$name" "${args[@]}"
  status=$?
  if [ "$status" -eq 0 ]; then
    outcome="ok"
  elif [ "$name" = gpu_check ] && [ "$status" -eq "$NO_GPU" ]; then
    outcome="no GPU here, not run"
  else
    outcome="failed"
    failed=1
  fi
  summary+=("$(printf '%-22s %6d s  exit %-3d %s' "$name" $((SECONDS - started)) "$status" "$outcome")")
done

echo "== summary"
printf '%s\n' "${summary[@]}"
exit "$failed"
