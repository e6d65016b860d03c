#!/usr/bin/env bash
# axe-core, which the accessibility tests inject into every page (tests/browser/axe): installs its
# npm package when it is missing. Needs Node.js and npm (Debian: apt-get install nodejs npm).
set -euo pipefail
folder="$(cd "$(dirname "$0")/.." && pwd)/tests/browser/axe"
[ -f "$folder/node_modules/axe-core/axe.min.js" ] && exit 0
for tool in node npm; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "install-axe: '$tool' is missing; install Node.js and npm (e.g. apt-get install nodejs npm)" >&2
    exit 1
  fi
done
cd "$folder"
npm ci --no-audit --no-fund  # the version package-lock.json pins
