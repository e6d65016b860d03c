#!/usr/bin/env bash
# The OpenID provider the OIDC tests sign in through (tests/accounts/oidc_provider): installs its
# npm packages when they are missing. Needs Node.js and npm (Debian: apt-get install nodejs npm).
set -euo pipefail
folder="$(cd "$(dirname "$0")/.." && pwd)/tests/accounts/oidc_provider"
[ -d "$folder/node_modules/oidc-provider" ] && exit 0
for tool in node npm; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "install-oidc-provider: '$tool' is missing; install Node.js and npm (e.g. apt-get install nodejs npm)" >&2
    exit 1
  fi
done
cd "$folder"
npm ci --no-audit --no-fund  # the versions package-lock.json pins
