"""The `tiercards` command: serve, worker, content check/new, db upgrade, demo run."""

import shutil
import subprocess
import sys
from pathlib import Path
from typing import Annotated

import typer

from app.settings import get_settings

cli = typer.Typer(
    help="tiercards: practise technical-interview questions at four depths.", no_args_is_help=True
)
content_cli = typer.Typer(help="Author and check cards.", no_args_is_help=True)
db_cli = typer.Typer(help="Database schema.", no_args_is_help=True)
cli.add_typer(content_cli, name="content")
cli.add_typer(db_cli, name="db")


@cli.command()
def serve(
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on.")] = 8000,
    no_worker: Annotated[bool, typer.Option("--no-worker", help="Do not start a demo worker.")] = False,
) -> None:
    """Upgrade the database, start a demo worker, and serve the web app."""
    import uvicorn

    from app import schema
    from app.main import create_app

    settings = get_settings()
    schema.upgrade(settings)
    worker = None if no_worker else _start_worker()
    shown = "127.0.0.1" if host in ("0.0.0.0", "::") else host
    typer.echo(f"tiercards is running at http://{shown}:{port}/  (Ctrl+C stops it)")
    try:
        uvicorn.run(create_app(settings), host=host, port=port, log_level="warning")
    finally:
        if worker is not None:
            worker.terminate()
            worker.wait(timeout=15)


def _start_worker() -> subprocess.Popen[bytes]:
    command = shutil.which("tiercards")
    args = [command, "worker"] if command else [sys.executable, "-m", "app.cli", "worker"]
    return subprocess.Popen(args)


@db_cli.command("upgrade")
def db_upgrade() -> None:
    """Bring the database to the newest schema."""
    from app import schema

    settings = get_settings()
    schema.upgrade(settings)
    typer.echo(f"database is up to date: {settings.database_url}")


@content_cli.command("check")
def content_check(
    path: Annotated[
        Path | None, typer.Argument(help="A card file or a folder (default: CONTENT_DIR).")
    ] = None,
) -> None:
    """Validate cards; exit 1 with one `path:line: message` per problem."""
    from app.content.catalogue import load

    snapshot = load(path or get_settings().content_dir)
    for problem in snapshot.problems:
        typer.echo(str(problem))
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


def main() -> None:
    cli()


if __name__ == "__main__":
    main()
