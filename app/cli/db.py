"""`tiercards db`: database migrations."""

import typer

from app.settings import get_settings

db_cli = typer.Typer(help="Database migrations.", no_args_is_help=True)


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
