"""`tiercards serve`: the web app, with a demo worker beside it."""

import signal
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import Annotated, Any

import typer

from app.settings import get_settings

# The standard asyncio loop, not uvloop: under 50 busy connections uvloop let about 1 % of
# requests wait over a second (p99 1.1 s, wrk timeouts) while asyncio kept p99 under 100 ms at
# the same throughput (bench/answer_writes.py; the same held for a bare Starlette endpoint).
SERVER_LOOP = "asyncio"
# Where `tiercards serve` listens unless told: also the port `users invite` guesses.
DEFAULT_PORT = 8000


def serve(
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on.")] = DEFAULT_PORT,
    no_worker: Annotated[bool, typer.Option("--no-worker", help="Do not start a demo worker.")] = False,
    workers: Annotated[
        int,
        typer.Option(
            min=1,
            help="Web processes answering on the port (a process that dies is replaced); the demo "
            "worker stays one.",
        ),
    ] = 1,
) -> None:
    """Upgrade the database, start a demo worker, and serve the web app."""
    import logging

    import uvicorn

    from app.cli.db import upgrade
    from app.logs import configure, logging_config

    settings = get_settings()
    configure(settings.is_production)
    _refuse_open_single(settings, host)
    upgrade(settings)
    supervisor = None
    if not no_worker:
        from app.worker.supervisor import WorkerSupervisor

        supervisor = WorkerSupervisor()
        supervisor.start()
    shown = "127.0.0.1" if host in ("0.0.0.0", "::") else host
    if settings.is_production:  # where every line is JSON, this one too
        logging.getLogger("tiercards").info("tiercards is running at http://%s:%s/", shown, port)
    else:
        typer.echo(f"tiercards is running at http://{shown}:{port}/  (Ctrl+C stops it)")
    # uvicorn shuts down gracefully on SIGTERM/SIGINT, then raises the signal again once its own
    # handlers are gone; with SIGTERM's default action this process would die before stopping its
    # worker below. Turn that second SIGTERM into a normal exit (SIGINT already is one).
    signal.signal(signal.SIGTERM, _exit_normally)
    try:
        # By import string, which each web process imports for itself (with the settings the
        # environment gives it). proxy_headers off: uvicorn would otherwise take the client's
        # address from X-Forwarded-For whenever the connection comes from loopback, before the app
        # can judge who sent it. The app reads forwarded headers itself, and only from
        # TRUSTED_PROXIES (app/web/guards.py).
        with _metrics_folder():
            uvicorn.run(
                "app.main:create_app",
                factory=True,
                workers=workers,
                host=host,
                port=port,
                log_config=logging_config(settings.is_production),
                access_log=False,
                loop=SERVER_LOOP,
                proxy_headers=False,
            )
    except KeyboardInterrupt:
        pass
    finally:
        if supervisor is not None:
            supervisor.stop()


@contextmanager
def _metrics_folder() -> Iterator[None]:
    """PROMETHEUS_MULTIPROC_DIR for the web processes, which count into files there that /metrics
    adds up (app/metrics.py); set before the app, and so prometheus_client, is imported. One the
    operator set is emptied of an earlier run's files, as prometheus_client asks; otherwise a new
    private folder, deleted when the server stops."""
    import os
    import shutil
    import tempfile

    # Named here, not imported from app.metrics: importing that would load prometheus_client.
    variable = "PROMETHEUS_MULTIPROC_DIR"
    chosen = os.environ.get(variable)
    if chosen:
        Path(chosen).mkdir(parents=True, exist_ok=True)
        for stale in Path(chosen).glob("*.db"):
            stale.unlink()
        yield
        return
    folder = tempfile.mkdtemp(prefix="tiercards-metrics-")
    os.environ[variable] = folder
    try:
        yield
    finally:
        del os.environ[variable]
        shutil.rmtree(folder, ignore_errors=True)


def _refuse_open_single(settings: Any, host: str) -> None:
    """AUTH_MODE=single has no sign-in: on a network address, anyone reaching the port would be
    its one user. Refuse unless that is asked for on purpose."""
    loopback = host in ("localhost", "::1") or host.startswith("127.")
    if settings.auth_mode == "single" and not loopback and not settings.allow_open_single:
        typer.echo(
            f"error: AUTH_MODE=single has no sign-in, so serving on {host} would let anyone who reaches "
            "the port read and change everything. Set AUTH_MODE=accounts (create the first admin with "
            "`tiercards users add NAME --role admin`) or AUTH_MODE=proxy, or set ALLOW_OPEN_SINGLE=1 "
            "to serve it open on purpose.",
            err=True,
        )
        raise typer.Exit(code=2)


def _exit_normally(_signum: int, _frame: FrameType | None) -> None:
    raise SystemExit(0)
