"""The `tiercards` command: serve, worker, content check/new/proposals, db upgrade, backup,
restore, demo run/workers, speech transcribe, coverage, users.

Each sub-app is a module of its own; this one puts them together under `cli`.
"""

import typer

from app.cli.backup import backup, restore
from app.cli.content import content_cli
from app.cli.coverage import coverage
from app.cli.db import db_cli
from app.cli.demo import demo_cli
from app.cli.serve import SERVER_LOOP, serve
from app.cli.speech import speech_cli
from app.cli.users import users_cli
from app.cli.worker import worker

__all__ = ["SERVER_LOOP", "cli", "main"]

cli = typer.Typer(
    help="tiercards: practise technical-interview questions at four depths.", no_args_is_help=True
)
cli.command()(serve)
cli.command()(worker)
cli.command()(coverage)
cli.command()(backup)
cli.command()(restore)
cli.add_typer(content_cli, name="content")
cli.add_typer(db_cli, name="db")
cli.add_typer(demo_cli, name="demo")
cli.add_typer(speech_cli, name="speech")
cli.add_typer(users_cli, name="users")


def main() -> None:
    cli()
