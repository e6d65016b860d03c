#!/bin/sh
# A web replica (the `web` image's command): the app without a demo worker, since workers run
# in containers of their own. It listens on HOST:PORT, 0.0.0.0:8000 unless they say otherwise.
set -eu
exec tiercards serve --no-worker --host "${HOST:-0.0.0.0}" --port "${PORT:-8000}"
