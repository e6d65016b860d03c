"""The `tiercards` command: serve, worker, content check/new, db upgrade, demo run/workers."""

import inspect
import json
import signal
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import Annotated, Any

import typer

from app.presets import PRESETS, DemoError, ParamError, ParamSpec, get_preset, validate_params
from app.settings import get_settings

cli = typer.Typer(
    help="tiercards: practise technical-interview questions at four depths.", no_args_is_help=True
)
content_cli = typer.Typer(help="Author and check cards.", no_args_is_help=True)
db_cli = typer.Typer(help="Database migrations.", no_args_is_help=True)
# The standard asyncio loop, not uvloop: under 50 busy connections uvloop let about 1 % of
# requests wait over a second (p99 1.1 s, wrk timeouts) while asyncio kept p99 under 100 ms at
# the same throughput (bench/answer_writes.py; the same held for a bare Starlette endpoint).
SERVER_LOOP = "asyncio"

demo_cli = typer.Typer(help="Live tf.data timing demos.", no_args_is_help=True)
cli.add_typer(content_cli, name="content")
cli.add_typer(db_cli, name="db")
cli.add_typer(demo_cli, name="demo")
users_cli = typer.Typer(help="People, roles and invites (AUTH_MODE=accounts or proxy).", no_args_is_help=True)
cli.add_typer(users_cli, name="users")


def _role_help() -> str:
    from app.roles import ROLES

    return "; ".join(f"{name}: {role.description}" for name, role in ROLES.items())


def _read_password(from_stdin: bool) -> str:
    if from_stdin:
        return sys.stdin.readline().rstrip("\n")
    password: str = typer.prompt("Password", hide_input=True, confirmation_prompt=True)
    return password


@contextmanager
def _users_change() -> Iterator[Any]:
    """A write session on the migrated database; a refusal exits 1 with its message, nothing stored."""
    from app.exceptions import DomainError
    from app.storage import migrations
    from app.storage.database import Database

    settings = get_settings()
    migrations.upgrade(settings)
    database = Database(settings)
    try:
        with database.write_sessions() as session:
            yield session
            session.commit()
    except DomainError as error:
        typer.echo(f"error: {error.message}", err=True)
        raise typer.Exit(code=1) from error
    finally:
        database.dispose()


@users_cli.command("add")
def users_add(
    name: Annotated[str, typer.Argument(help="The name they sign in with.")],
    role: Annotated[str, typer.Option(help=_role_help())] = "member",
    password_stdin: Annotated[
        bool, typer.Option("--password-stdin", help="Read the password from standard input (for scripts).")
    ] = False,
) -> None:
    """Add a person with a password (the first admin comes from here). Unlike an invite, this may
    take a reserved name such as admin; never local, the solo history of single mode."""
    from app.accounts import passwords, service

    password = _read_password(password_stdin)
    with _users_change() as session:
        # Hashed before the session's first query: argon2 never runs inside the write.
        hashed = passwords.new_hash(password, name)
        user = service.create_user(session, name, role, by_operator=True, password_hash=hashed)
        typer.echo(f"added {user.name} ({user.role})")


@users_cli.command("invite")
def users_invite(
    role: Annotated[str, typer.Option(help=_role_help())] = "member",
    expires_days: Annotated[float, typer.Option(help="Days the link works (at most 90).")] = 7,
) -> None:
    """Print a one-time invite link: whoever opens it chooses a name and a password."""
    from app.accounts import service

    with _users_change() as session:
        token = service.create_invite(session, role, expires_days)
    base = get_settings().public_url.rstrip("/") or "http://127.0.0.1:8000"
    typer.echo(f"{base}/invite/{token}")


@users_cli.command("list")
def users_list() -> None:
    """Every account, with its role and whether it is disabled (the solo history of single mode is
    none: see adopt-local)."""
    from app.accounts import service

    with _users_change() as session:
        for user in service.all_users(session):
            state = "disabled" if user.disabled else "active"
            how = "password" if user.password_hash else ("oidc" if user.oidc_subject else "no password")
            typer.echo(f"{user.name}\t{user.role}\t{state}\t{how}")


@users_cli.command("set-role")
def users_set_role(
    name: Annotated[str, typer.Argument()], role: Annotated[str, typer.Argument(help=_role_help())]
) -> None:
    """Change a person's role (also how to recover when no admin can sign in); never the last
    active admin's away."""
    from app.accounts import service

    with _users_change() as session:
        service.change_person(session, name=name, role=role, via="cli")
    typer.echo(f"{name} is now {role}")


@users_cli.command("disable")
def users_disable(name: Annotated[str, typer.Argument()]) -> None:
    """Sign a person out everywhere, revoke their API tokens and keep them out; their history
    stays. Never the last active admin."""
    from app.accounts import service

    with _users_change() as session:
        service.change_person(session, name=name, disabled=True, via="cli")
    typer.echo(f"{name} is disabled")


@users_cli.command("enable")
def users_enable(name: Annotated[str, typer.Argument()]) -> None:
    """Let a disabled person sign in again."""
    from app.accounts import service

    with _users_change() as session:
        service.change_person(session, name=name, disabled=False, via="cli")
    typer.echo(f"{name} is enabled")


@users_cli.command("adopt-local")
def users_adopt_local(
    name: Annotated[str, typer.Argument(help="The account that takes the solo history.")],
) -> None:
    """Give what was practised alone (AUTH_MODE=single) to an account: attempts, schedules, demo
    runs, settings and assignments move in one step, audited. Refused, moving nothing, when the
    account and the solo history both have a schedule on one card at one depth."""
    from app.team import adopt

    with _users_change() as session:
        moved = adopt.adopt_local(session, name)
    counts = ", ".join(f"{what.replace('_', ' ')}: {count}" for what, count in moved.items())
    typer.echo(f"{name} now has the solo history: {counts}")


@users_cli.command("reset-password")
def users_reset_password(
    name: Annotated[str, typer.Argument()],
    password_stdin: Annotated[
        bool, typer.Option("--password-stdin", help="Read it from standard input.")
    ] = False,
) -> None:
    """Set a new password for a person (it signs them out everywhere and revokes their API tokens)."""
    from app.accounts import passwords, service

    password = _read_password(password_stdin)
    with _users_change() as session:
        # Hashed before the session's first query: argon2 never runs inside the write.
        hashed = passwords.new_hash(password, name)
        service.set_password(session, service.user_or_404(session, name), hashed)
    typer.echo(f"{name} has a new password")


@cli.command()
def serve(
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on.")] = 8000,
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

    from app.logs import configure, logging_config
    from app.storage import migrations

    settings = get_settings()
    configure(settings.is_production)
    _refuse_open_single(settings, host)
    migrations.upgrade(settings)
    supervisor = None
    if not no_worker:
        from app.demos.worker.supervisor import WorkerSupervisor

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


@cli.command()
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

    from app.demos.worker import DemoWorker
    from app.logs import configure as configure_logging
    from app.storage import migrations

    settings = get_settings()
    if settings.is_production:
        # JSON lines, like the web's, for the same log collector.
        configure_logging(production=True)
    else:
        logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s: %(message)s")
    logging.getLogger("huey").setLevel(logging.WARNING)
    migrations.upgrade(settings)
    code = DemoWorker(settings, parent_pid=parent_pid, gpu=gpu).serve()
    raise typer.Exit(code=code)


@db_cli.command("upgrade")
def db_upgrade() -> None:
    """Bring the database to the newest migrations."""
    from sqlalchemy.engine import make_url

    from app.storage import migrations

    settings = get_settings()
    migrations.upgrade(settings)
    # Printed into container logs: never the password in DATABASE_URL.
    shown = make_url(settings.database_url).render_as_string(hide_password=True)
    typer.echo(f"database is up to date: {shown}")


@content_cli.command("check")
def content_check(
    path: Annotated[
        Path | None, typer.Argument(help="A card file or a folder (default: CONTENT_DIR).")
    ] = None,
) -> None:
    """Validate cards; exit 1 with one `path:line: message` per problem. Edits since git's HEAD that
    would orphan recorded answers are warned about the same way, without failing."""
    from app.content.catalogue import load
    from app.content.history_check import orphaning_edits

    snapshot = load(path or get_settings().content_dir)
    warnings = orphaning_edits(snapshot.cards.values())
    for line in [*snapshot.problems, *warnings]:
        typer.echo(str(line))
    if warnings:
        guide = '"Editing a published card" in content/README.md'
        typer.echo(
            f"{len(warnings)} warning(s): the history of those items starts over (see {guide})", err=True
        )
    if snapshot.problems:
        files = len(snapshot.broken)
        typer.echo(f"{len(snapshot.problems)} problem(s) in {files} file(s)", err=True)
        raise typer.Exit(code=1)
    typer.echo(f"{len(snapshot.cards)} card(s) OK", err=True)


@content_cli.command("new")
def content_new(
    card_id: Annotated[str, typer.Argument(help="Stable id, e.g. tf-data-cache-order.")],
    title: Annotated[str, typer.Option(help="The question.")] = "A new question?",
    level: Annotated[str, typer.Option(help="junior, middle, senior or principal.")] = "middle",
) -> None:
    """Write a new card with every section in place, in CONTENT_DIR."""
    from app.content.scaffold import new_card

    target = get_settings().content_dir / f"{card_id}.md"
    if target.exists():
        typer.echo(f"{target} already exists", err=True)
        raise typer.Exit(code=1)
    try:
        text = new_card(card_id, title, level)
    except ValueError as error:
        typer.echo(str(error), err=True)
        raise typer.Exit(code=1) from error
    target.write_text(text, encoding="utf-8")
    typer.echo(f"wrote {target}; fill it in, then run: tiercards content check {target}")


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
    from app.demos.runner import run_in_process

    given = {name: value for name, value in options.items() if value is not None}
    try:
        spec = get_preset(preset)
        known = [p.name for p in spec.params]
        for name in given:
            if name not in known:
                raise ParamError(name, f"{preset} has no parameter {name} (it takes {', '.join(known)})")
        params = validate_params(preset, given, get_settings().demo_memory_limit_mb)
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
    from app.demos.queue import queue_kind
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


def main() -> None:
    cli()


if __name__ == "__main__":
    main()
