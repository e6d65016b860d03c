"""`tiercards worker`: the worker that runs demos and transcribes recordings."""

from typing import Annotated

import typer

from app.settings import get_settings


def worker(
    parent_pid: Annotated[
        int | None, typer.Option(hidden=True, help="Stop when this process is no longer the parent.")
    ] = None,
    gpu: Annotated[
        bool | None,
        typer.Option(
            "--gpu/--no-gpu",
            help="--gpu: take demos that need a GPU whatever TensorFlow finds here. --no-gpu: never "
            "take them, and keep TensorFlow off this host's GPUs. Neither: a GPU worker when "
            "TensorFlow lists a GPU.",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Run live demos from the queue (QUEUE_URL), one at a time, with TensorFlow in a child process."""
    import logging

    from app.cli.db import upgrade
    from app.logs import configure as configure_logging
    from app.storage.private import private_umask
    from app.worker.consumer import Worker

    # All a worker writes is the app's data (the web also writes the content folder, so not there):
    # whatever it, or a process it starts, creates is private.
    private_umask()
    settings = get_settings()
    if settings.is_production:
        # JSON lines, like the web's, for the same log collector.
        configure_logging(production=True)
    else:
        logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s: %(message)s")
    logging.getLogger("huey").setLevel(logging.WARNING)
    upgrade(settings)
    code = Worker(settings, parent_pid=parent_pid, gpu=gpu).serve()
    raise typer.Exit(code=code)
