"""`tiercards backup` and `tiercards restore`: one file holding the database (and the cards where
git does not keep them), taken while the app serves; restored into an empty database."""

from pathlib import Path
from typing import Annotated

import typer

from app.settings import get_settings


def backup(
    to: Annotated[Path | None, typer.Option(help="The folder to write it into (default BACKUP_DIR).")] = None,
) -> None:
    """Write one backup file while the app serves; print its path and size."""
    from app.backups import service
    from app.exceptions import DomainError

    try:
        taken = service.take(get_settings(), to=to)
    except DomainError as error:
        typer.echo(f"error: {error.message}", err=True)
        raise typer.Exit(code=1) from error
    typer.echo(f"{taken.path}\t{taken.size} bytes")


def restore(
    file: Annotated[Path, typer.Argument(help="A file `tiercards backup` wrote.")],
    force: Annotated[bool, typer.Option(help="Replace what the database holds now.")] = False,
) -> None:
    """Restore a backup into an empty database (or, with --force, over what is there), then
    upgrade it to this version's schema."""
    from app.backups import service
    from app.exceptions import DomainError

    try:
        manifest = service.restore(get_settings(), file=file, force=force)
    except DomainError as error:
        typer.echo(f"error: {error.message}", err=True)
        raise typer.Exit(code=1) from error
    typer.echo(f"restored the backup taken {manifest['taken_at']}")
