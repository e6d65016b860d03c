#!/usr/bin/env bash
# Debian packages the tests need: chromium (browser tests), redis-server (the Redis queue path),
# nginx and openssl (AUTH_MODE=proxy behind a real nginx with basic auth; openssl hashes its passwords),
# Node.js and npm (the OIDC tests' provider), postgresql (the suite's second run, scripts/postgres.sh),
# flite and espeak-ng (two speech engines speak the clips tests/speech transcribe).
set -euo pipefail
missing=()
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
# nginx lives in /usr/sbin, which is not on a non-root PATH.
[ -x /usr/sbin/nginx ] || command -v nginx >/dev/null 2>&1 || missing+=(nginx)
command -v openssl >/dev/null 2>&1 || missing+=(openssl)
# Node.js runs the OpenID provider the OIDC tests sign in through (scripts/install-npm-packages.sh).
command -v npm >/dev/null 2>&1 || missing+=(nodejs npm)
compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null || missing+=(postgresql)
command -v flite >/dev/null 2>&1 || missing+=(flite)
command -v espeak-ng >/dev/null 2>&1 || missing+=(espeak-ng)
[ ${#missing[@]} -eq 0 ] && exit 0
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "installing ${missing[*]} with apt-get"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
