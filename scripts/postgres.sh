#!/usr/bin/env bash
# A throwaway PostgreSQL server from Debian's `postgresql` package, on a folder and a port of the
# caller's choosing, for the tests and benchmarks (never for real data: see PG_OPTIONS).
#
#   scripts/postgres.sh start DIR PORT   initdb DIR if empty, start on 127.0.0.1:PORT, wait until ready
#   scripts/postgres.sh stop DIR         fast shutdown
#   scripts/postgres.sh restart DIR      fast shutdown and start again (fault benchmarks)
#   scripts/postgres.sh destroy DIR      stop it and delete its data
#
# Connect as postgresql+psycopg://postgres@127.0.0.1:PORT/postgres (trust auth on loopback only).
# initdb refuses to run as root, so as root the server runs as the `postgres` user.
set -euo pipefail
command="${1:?usage: postgres.sh start DIR PORT | stop DIR | restart DIR | destroy DIR}"
dir="${2:?the folder to keep the server in}"
# fsync off: a test server's data need not survive a power cut; a clean stop still writes it all.
options="${PG_OPTIONS:--c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=400}"

bin=""
for candidate in /usr/lib/postgresql/*/bin; do [ -x "$candidate/initdb" ] && bin="$candidate"; done
if [ -z "$bin" ]; then
  bash "$(dirname "$0")/install-system-deps.sh" >&2
  for candidate in /usr/lib/postgresql/*/bin; do [ -x "$candidate/initdb" ] && bin="$candidate"; done
fi

# As root the cluster lives where the postgres user can reach it (a caller's temp folder is often
# private to root), named after DIR so that stop and restart find it again.
if [ "$(id -u)" -eq 0 ]; then
  dir="/tmp/tiercards-postgres-$(printf '%s' "$(realpath -m "$dir")" | sha1sum | cut -c1-16)"
fi

as_owner() {
  if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

case "$command" in
  start)
    port="${3:?the port to listen on}"
    mkdir -p "$dir"
    [ "$(id -u)" -eq 0 ] && chown postgres: "$dir" && chmod 700 "$dir"
    if [ ! -f "$dir/PG_VERSION" ]; then
      as_owner "$bin/initdb" -D "$dir" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 >/dev/null
    fi
    # The socket lives in the data folder: no /var/run/postgresql needed.
    as_owner "$bin/pg_ctl" -D "$dir" -l "$dir/server.log" -w -t 60 \
      -o "-p $port -h 127.0.0.1 -k $dir $options" start >/dev/null
    echo "postgresql+psycopg://postgres@127.0.0.1:$port/postgres"
    ;;
  stop)
    as_owner "$bin/pg_ctl" -D "$dir" -m fast -w stop >/dev/null
    ;;
  restart)
    as_owner "$bin/pg_ctl" -D "$dir" -m fast -w -t 60 restart >/dev/null
    ;;
  destroy)
    [ -f "$dir/postmaster.pid" ] && as_owner "$bin/pg_ctl" -D "$dir" -m immediate -w stop >/dev/null
    rm -rf "$dir"
    ;;
  *)
    echo "usage: postgres.sh start DIR PORT | stop DIR | restart DIR | destroy DIR" >&2
    exit 2
    ;;
esac
