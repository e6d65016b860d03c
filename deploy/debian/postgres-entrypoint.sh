#!/bin/sh
# The first start of the official postgres image, for the variables compose.yaml sets: an empty
# PGDATA gets a cluster whose superuser is POSTGRES_USER (password POSTGRES_PASSWORD, asked of every
# TCP connection) and a database POSTGRES_DB. A PGDATA with a cluster in it is left as it is.
set -eu
if [ "${1:-}" = postgres ] && [ ! -s "$PGDATA/PG_VERSION" ]; then
    user="${POSTGRES_USER:-postgres}"
    password_file="$(mktemp)"
    printf '%s\n' "${POSTGRES_PASSWORD:?POSTGRES_PASSWORD is needed to make the database}" >"$password_file"
    initdb --username="$user" --pwfile="$password_file" --auth-local=trust \
        --auth-host=scram-sha-256 --encoding=UTF8 --locale=C.UTF-8 -D "$PGDATA"
    rm -f "$password_file"
    # Any address may ask, but every TCP connection must give the password.
    echo "host all all all scram-sha-256" >>"$PGDATA/pg_hba.conf"
    # Sockets only while the database is made: no client sees it half made.
    pg_ctl -D "$PGDATA" -o "-c listen_addresses=''" -w start
    database="${POSTGRES_DB:-$user}"
    if [ "$database" != postgres ]; then
        createdb --username="$user" --owner="$user" "$database"
    fi
    pg_ctl -D "$PGDATA" -m fast -w stop
fi
exec "$@"
