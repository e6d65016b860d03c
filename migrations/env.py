from alembic import context
from sqlalchemy import Connection

# Each domain's models module registers its tables on the shared metadata.
from app.accounts import models as _accounts  # noqa: F401
from app.demos import models as _demos  # noqa: F401
from app.practice import models as _practice  # noqa: F401
from app.settings import get_settings
from app.storage.base import Base
from app.storage.database import make_engine
from app.team import models as _team  # noqa: F401

target_metadata = Base.metadata


def _configure(connection: Connection) -> None:
    context.configure(connection=connection, target_metadata=target_metadata, render_as_batch=True)
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    # An engine handed in by app.storage.migrations.upgrade (tests, `tiercards db upgrade`) wins over settings.
    connection = context.config.attributes.get("connection")
    if connection is not None:
        _configure(connection)
        return
    engine = make_engine(get_settings(), migrating=True)
    with engine.connect() as connection:
        _configure(connection)
    engine.dispose()


if context.is_offline_mode():
    context.configure(url=get_settings().database_url, target_metadata=target_metadata, render_as_batch=True)
    with context.begin_transaction():
        context.run_migrations()
else:
    run_migrations_online()
