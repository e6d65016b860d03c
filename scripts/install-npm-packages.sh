#!/usr/bin/env bash
# The npm packages the tests use, each in its own folder with a package-lock.json: the OpenID
# provider the OIDC tests sign in through (tests/accounts/oidc_provider) and axe-core, which the
# accessibility tests inject into every page (tests/browser/axe). Installs what is missing.
# Needs Node.js and npm (Debian: apt-get install nodejs npm).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
# folder, then the file that is there once its packages are
packages=(
  "tests/accounts/oidc_provider" "node_modules/oidc-provider/package.json"
  "tests/browser/axe" "node_modules/axe-core/axe.min.js"
)
for ((i = 0; i < ${#packages[@]}; i += 2)); do
  folder="$root/${packages[i]}"
  [ -f "$folder/${packages[i + 1]}" ] && continue
  for tool in node npm; do
    if ! command -v "$tool" >/dev/null 2>&1; then
      echo "install-npm-packages: '$tool' is missing; install Node.js and npm (e.g. apt-get install nodejs npm)" >&2
      exit 1
    fi
  done
  (cd "$folder" && npm ci --no-audit --no-fund)  # the versions package-lock.json pins
done
