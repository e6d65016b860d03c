"""`tiercards demo`: run a live tf.data demo here, and list the demo workers."""

import inspect
import json
from collections.abc import Callable
from typing import Annotated, Any

import typer

from app.presets import PRESETS, DemoError, ParamError, ParamSpec, get_preset, validate_params
from app.settings import get_settings

demo_cli = typer.Typer(help="Live tf.data timing demos.", no_args_is_help=True)


def _declared_param_options() -> list[inspect.Parameter]:
    """One --option per parameter any preset declares, in the order the presets declare them."""
    specs: dict[str, ParamSpec] = {}
    takers: dict[str, list[str]] = {}
    for declared in PRESETS.values():
        for p in declared.params:
            specs.setdefault(p.name, p)
            takers.setdefault(p.name, []).append(declared.name)
    options = []
    for name, p in specs.items():
        only = f"; {', '.join(takers[name])} only" if len(takers[name]) < len(PRESETS) else ""
        option = typer.Option(help=f"{p.help} ({p.unit}{only})", show_default=False)
        options.append(
            inspect.Parameter(
                name, inspect.Parameter.KEYWORD_ONLY, default=None, annotation=Annotated[int | None, option]
            )
        )
    return options


def _with_param_options(command: Callable[..., None]) -> Callable[..., None]:
    """Replace the command's **options with the declared parameters' options.

    Typer reads a command's parameters through inspect.signature, which honours __signature__,
    and calls the command with each option as a keyword argument under its parameter's name.
    """
    signature = inspect.signature(command)
    own = signature.parameters.values()
    arguments = [p for p in own if p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD]
    flags = [p for p in own if p.kind is inspect.Parameter.KEYWORD_ONLY]
    parameters = [*arguments, *_declared_param_options(), *flags]
    command.__signature__ = signature.replace(parameters=parameters)  # type: ignore[attr-defined]
    return command


@demo_cli.command("run")
@_with_param_options
def demo_run(
    preset: Annotated[str, typer.Argument(help=f"One of {', '.join(PRESETS)}.")],
    *,
    as_json: Annotated[bool, typer.Option("--json", help="Print the result document as JSON.")] = False,
    **options: int | None,
) -> None:
    """Run one demo here and now (no queue, no worker) and print its result."""
    from app.demos.child import run_in_process

    given = {name: value for name, value in options.items() if value is not None}
    try:
        spec = get_preset(preset)
        known = [p.name for p in spec.params]
        for name in given:
            if name not in known:
                raise ParamError(name, f"{preset} has no parameter {name} (it takes {', '.join(known)})")
        params = validate_params(preset, params=given, memory_limit_mb=get_settings().demo_memory_limit_mb)
    except ParamError as error:
        typer.echo(f"error: {error.message}", err=True)
        raise typer.Exit(code=2) from error

    def progress(p: dict[str, Any]) -> None:
        if not as_json and p["steps_done"] == 0:
            typer.echo(f"  {p['variant']} ({p['variant_index'] + 1}/{p['variants_total']})…", err=True)

    if not as_json:
        typer.echo(f"{spec.title}: {', '.join(f'{k}={v}' for k, v in params.items())}", err=True)
    try:
        doc = run_in_process(preset, params=params, on_progress=progress)
    except DemoError as error:
        if as_json:
            typer.echo(
                json.dumps({"preset": preset, "params": params, "status": "failed", "error": error.message})
            )
        else:
            typer.echo(f"error: {error.message}", err=True)
        raise typer.Exit(code=1) from error
    doc = {"preset": doc["preset"], "params": doc["params"], "status": "done", **doc}
    if as_json:
        typer.echo(json.dumps(doc, indent=2))
    else:
        from app.demos.presenters.cli_text import result_table_text

        typer.echo(result_table_text(doc))


@demo_cli.command("workers")
def demo_workers(
    here: Annotated[
        bool,
        typer.Option(
            "--here",
            help="Only workers on this host; exit 1 unless one beat within DEMO_HEARTBEAT_TIMEOUT_SECONDS "
            "(a container health check).",
        ),
    ] = False,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print them as JSON, as GET /api/workers does.")
    ] = False,
) -> None:
    """Live demo workers: their capabilities (the queue lanes they read), GPU, device, TensorFlow
    version and last beat."""
    import socket

    from sqlalchemy.exc import SQLAlchemyError

    from app.demos import runs
    from app.demos.presenters.cli_text import workers_text
    from app.demos.presenters.documents import workers_document
    from app.jobs.queue import queue_kind
    from app.storage.base import utcnow
    from app.storage.database import Database

    settings = get_settings()
    timeout = settings.demo_heartbeat_timeout_seconds
    host = socket.gethostname() if here else None
    db = Database(settings)
    try:
        with db.read_sessions() as session:
            workers = runs.alive_workers(session, timeout_seconds=timeout, host=host)
            if as_json:
                shown = json.dumps(
                    workers_document(workers, timeout=timeout, queue_kind=queue_kind(settings.queue_url)),
                    indent=2,
                )
            else:
                shown = workers_text(workers, timeout=timeout, now=utcnow())
    except SQLAlchemyError as error:
        typer.echo(f"error: could not read the demo workers from the database: {error}", err=True)
        raise typer.Exit(code=1) from error
    finally:
        db.dispose()
    if here and not workers:
        typer.echo(f"no demo worker on {host} has beaten in the last {timeout:.0f} s", err=True)
        raise typer.Exit(code=1)
    typer.echo(shown)
