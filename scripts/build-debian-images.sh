#!/usr/bin/env bash
# For a machine that reaches no image registry, what compose.debian.yaml builds on: a Debian 12
# base made with debootstrap from Debian's own mirror and imported into Docker, and on it the
# Python image the tiercards images start from (compose builds the other Debian images itself).
#
#   scripts/build-debian-images.sh          builds what is missing (the base takes about a minute)
#
# The base trusts the certificates this machine trusts (its CA bundle), so that a machine whose
# registries are behind an intercepting proxy builds the same way. Needs root (debootstrap) and a
# running Docker engine.
set -euo pipefail
cd "$(dirname "$0")/.."
mirror="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
base=tiercards-local/debian:bookworm

if ! docker image inspect "$base" >/dev/null 2>&1; then
  if ! command -v debootstrap >/dev/null; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null
  fi
  root="$(mktemp -d)"
  trap 'rm -rf --one-file-system "$root"' EXIT
  debootstrap --variant=minbase --include=ca-certificates bookworm "$root" "$mirror" >/dev/null
  # The certificates this machine trusts that Debian's own store lacks, one file each, as
  # update-ca-certificates wants them.
  awk -v dir="$root/usr/local/share/ca-certificates" '
    FNR == 1 { file++ }
    /BEGIN CERTIFICATE/ { block = "" }
    { block = block $0 "\n" }
    /END CERTIFICATE/ {
      if (file == 1) known[block] = 1
      else if (!(block in known)) { n++; printf "%s", block > sprintf("%s/building-machine-%03d.crt", dir, n) }
    }' "$root/etc/ssl/certs/ca-certificates.crt" /etc/ssl/certs/ca-certificates.crt
  chroot "$root" update-ca-certificates >/dev/null
  # Debian's mirror and its security updates, as the official debian image lists them.
  cat >"$root/etc/apt/sources.list" <<SOURCES
deb $mirror bookworm main
deb $mirror bookworm-updates main
deb ${DEBIAN_SECURITY_MIRROR:-http://deb.debian.org/debian-security} bookworm-security main
SOURCES
  rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*
  tar --numeric-owner -C "$root" -c . | docker import - "$base" >/dev/null
  echo "built $base"
fi

# The Python image the tiercards images start from (their PYTHON_IMAGE). compose builds the rest of
# deploy/debian/Dockerfile's images itself (compose.debian.yaml); this one must exist first.
docker build --quiet --network host --target python -t tiercards-local/python:3.11-bookworm deploy/debian >/dev/null
echo "built tiercards-local/python:3.11-bookworm"
