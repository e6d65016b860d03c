"""`tiercards db`: database migrations, and the practice aggregates' rebuild."""

import typer

from app.settings import Settings, get_settings

db_cli = typer.Typer(help="Database migrations.", no_args_is_help=True)

# The revision that made the practice aggregates: a database below it has them rebuilt once
# upgraded (the migration cannot know the deck, which timing and quiz counts need).
AGGREGATES_REVISION = "0021"


@db_cli.command("upgrade")
def db_upgrade() -> None:
    """Bring the database to the newest migrations (and, coming from before the practice
    aggregates, fill them in)."""
    from sqlalchemy.engine import make_url

    settings = get_settings()
    upgrade(settings)
    # Printed into container logs: never the password in DATABASE_URL.
    shown = make_url(settings.database_url).render_as_string(hide_password=True)
    typer.echo(f"database is up to date: {shown}")


@db_cli.command("rebuild-aggregates")
def db_rebuild_aggregates() -> None:
    """Recount everyone's practice per day, quiz statements missed and reviews rated again from
    their answers and review log, with the cards in the content folder; then the team's counts
    per card and per statement from those."""
    from app.storage import migrations

    settings = get_settings()
    migrations.upgrade(settings)  # not upgrade(): that could rebuild, and this rebuilds anyway
    _rebuild(settings)


def upgrade(settings: Settings) -> None:
    """Make the data folder private, bring the database to the newest migrations and, coming from
    before the practice aggregates, fill them in: what every command that upgrades does first."""
    from app.storage import migrations
    from app.storage.private import private_data_folder

    # Files an earlier version, or a looser umask, left readable to others.
    private_data_folder(settings.data_dir)
    before = migrations.revision(settings)
    migrations.upgrade(settings)
    if before is not None and before < AGGREGATES_REVISION:
        _rebuild(settings)


def _rebuild(settings: Settings) -> None:
    from app.content.catalogue import load
    from app.practice import totals
    from app.storage.database import Database
    from app.team import counts

    cards = load(settings.content_dir).cards
    database = Database(settings)
    try:
        done = totals.rebuild(database.write_sessions, cards=cards)
        with database.write_sessions() as session:
            counts.recount(session)
            session.commit()
    finally:
        database.dispose()
    typer.echo(
        f"practice aggregates rebuilt for {done.people} people with {len(cards)} cards: {done.days} days,"
        f" {done.tallies} quiz statements, {done.schedules} schedules; the team's counts recounted"
    )
