#!/bin/sh
# The `web` image's HEALTHCHECK: /healthz of the replica in this container, on the port
# start-web.sh listens on. It asks under the first name in ALLOWED_HOSTS, as requests through
# the proxy do (any other Host gets 400); over loopback, production mode answers plain HTTP.
set -eu
exec python3 - <<'PYTHON'
import json
import os
import sys
import urllib.request

names = [name.strip() for name in os.environ.get("ALLOWED_HOSTS", "").split(",")]
host = next((name for name in names if name and name != "*"), "localhost")
if ":" in host:
    host = f"[{host}]"
request = urllib.request.Request(
    f"http://127.0.0.1:{os.environ.get('PORT', '8000')}/healthz", headers={"Host": host}
)
try:
    with urllib.request.urlopen(request, timeout=5) as response:
        status = json.load(response).get("status")
except Exception as error:  # any failure to answer is "unhealthy", said in the container's health log
    sys.exit(f"/healthz did not answer: {error}")
if status != "ok":
    sys.exit(f"/healthz says {status!r}")
PYTHON
