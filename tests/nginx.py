"""A real nginx for tests and benchmarks: its whole configuration in a folder of the caller's,
started in the foreground on loopback."""

import os
import shutil
import subprocess
from pathlib import Path

NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
# What nginx logs per request, for tests that ask which upstream answered ("-": nginx itself).
PROBE_LOG = "log_format probe '$request_uri $status $upstream_addr';"


def main_conf(folder: Path, http: str, connections: int = 64) -> Path:
    """folder/nginx.conf: `http` (the directives of the http block) with everything nginx writes
    kept in `folder`."""
    # As root, nginx's workers would switch to nobody, who cannot read pytest's private tmp folder.
    user = "user root;" if os.geteuid() == 0 else ""
    path = folder / "nginx.conf"
    path.write_text(f"""
{user}
worker_processes 1;
pid {folder}/nginx.pid;
error_log {folder}/error.log;
events {{ worker_connections {connections}; }}
http {{
    client_body_temp_path {folder}/client_body;
    proxy_temp_path {folder}/proxy;
    fastcgi_temp_path {folder}/fastcgi;
    uwsgi_temp_path {folder}/uwsgi;
    scgi_temp_path {folder}/scgi;
{http}
}}
""")
    return path


def start(conf: Path) -> subprocess.Popen[bytes]:
    """nginx in the foreground on `conf` (the caller stops it)."""
    if not Path(NGINX).exists():
        raise RuntimeError("nginx is not installed: run scripts/install-system-deps.sh (make test does)")
    folder = conf.parent
    return subprocess.Popen(
        [NGINX, "-p", str(folder), "-e", str(folder / "error.log"), "-c", str(conf), "-g", "daemon off;"]
    )
