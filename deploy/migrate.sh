#!/bin/sh
# Brings the database to the newest schema once, before any web replica starts (compose's
# one-shot `migrate` service).
set -eu
exec tiercards db upgrade
