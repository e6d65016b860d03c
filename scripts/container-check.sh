#!/usr/bin/env bash
# The images and compose.yaml, built and run for real (`make test-containers`; `make test` runs it
# last): a Docker engine, the Debian-built base (scripts/build-debian-images.sh), every image of
# compose.yaml with compose.debian.yaml, each image's size, then tests/containers against the
# deployment they make up. Fails when a build or a test fails.
#
# Where no engine answers, it installs Debian's docker.io and starts one of its own, with no bridge
# and no iptables rules (every container shares the host's network and listens on loopback), on a
# socket and folders of its own; that engine, its containers and its mounts are gone when it
# ends, whether it passed or not. An engine that already runs is used and left running; only the
# containers and volumes of this check are removed from it.
set -euo pipefail
cd "$(dirname "$0")/.."
started=$SECONDS

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
need=()
command -v dockerd >/dev/null 2>&1 || need+=(docker.io)
command -v docker-compose >/dev/null 2>&1 || docker compose version >/dev/null 2>&1 || need+=(docker-compose)
command -v debootstrap >/dev/null 2>&1 || need+=(debootstrap)
if [ ${#need[@]} -gt 0 ]; then
  echo "installing ${need[*]} with apt-get"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}" >/dev/null
fi

engine=""
cleanup() {
  local status=$?
  # Every step is tried whatever the one before it did: a half-done tear-down leaves an engine.
  set +e
  # Whatever this check brought up and did not take down itself (a test stopped halfway).
  for project in $(docker ps -a --filter "label=com.docker.compose.project" \
      --format '{{.Label "com.docker.compose.project"}}' 2>/dev/null | sort -u | grep '^tiercards-check-' || true); do
    docker ps -aq --filter "label=com.docker.compose.project=$project" | xargs -r docker rm -f >/dev/null 2>&1
    docker volume ls -q --filter "label=com.docker.compose.project=$project" | xargs -r docker volume rm >/dev/null 2>&1
  done
  if [ -n "$engine" ]; then
    local pid
    pid="$(cat "$engine/dockerd.pid" 2>/dev/null)"
    if [ -n "$pid" ]; then
      kill "$pid" 2>/dev/null
      for _ in $(seq 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
      # An engine that will not stop in 30 s is stopped for it (its containerd goes with it).
      kill -9 "$pid" 2>/dev/null
    fi
    # Deepest first: the containers' overlays, then the engine's own folders.
    grep -o " $engine[^ ]*" /proc/mounts | sort -r | xargs -r -n1 umount -l 2>/dev/null
    rm -rf --one-file-system "$engine"
  fi
  echo "container check: $((SECONDS - started)) s, exit $status"
}
trap cleanup EXIT

if ! docker info >/dev/null 2>&1; then
  [ "$(id -u)" -eq 0 ] || { echo "no Docker engine answers, and starting one needs root: run it as root, or start Docker" >&2; exit 1; }
  engine="$(mktemp -d /var/tmp/tiercards-docker.XXXXXX)"
  export DOCKER_HOST="unix://$engine/docker.sock"
  dockerd --bridge=none --iptables=false --ip6tables=false --host "$DOCKER_HOST" \
    --data-root "$engine/data" --exec-root "$engine/exec" --pidfile "$engine/dockerd.pid" \
    >"$engine/dockerd.log" 2>&1 &
  for _ in $(seq 60); do docker info >/dev/null 2>&1 && break; sleep 0.5; done
  docker info >/dev/null 2>&1 || { cat "$engine/dockerd.log" >&2; exit 1; }
fi

compose=(docker-compose)
docker compose version >/dev/null 2>&1 && compose=(docker compose)
bash scripts/build-debian-images.sh
log="$(mktemp)"
# Building needs no secrets, but compose.yaml refuses to be read without them.
SECRET_KEY=unused POSTGRES_PASSWORD=unused REDIS_PASSWORD=unused "${compose[@]}" -f compose.yaml -f compose.debian.yaml build >"$log" 2>&1 \
  || { tail -n 80 "$log"; exit 1; }
echo "image sizes:"
docker image ls --format '{{.Repository}}:{{.Tag}}  {{.Size}}' | grep '^tiercards' | sort | sed 's/^/  /'
echo "built in $((SECONDS - started)) s"

TIERCARDS_TEST_CONTAINERS=1 .venv/bin/python -m pytest -p no:cacheprovider tests/containers
