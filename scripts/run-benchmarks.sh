#!/usr/bin/env bash
# Every benchmark under bench/, one after another (they would disturb each other if run together).
set -euo pipefail
cd "$(dirname "$0")/.."
command -v wrk >/dev/null 2>&1 || {
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq wrk >/dev/null
}
for bench in load_cards render_budget card_page library_page signed_in_card_page sign_in_writes answer_writes coverage_latency mixed_load soak due_queue team_page progress_page export_memory team_load import_wait import_memory demo_fidelity demo_queue; do
  echo "== bench/$bench.py"
  .venv/bin/python -m "bench.$bench"
done
