from alembic import context
from sqlalchemy import Connection, Engine

# Each domain's models module registers its tables on the shared metadata.
from app.accounts import models as _accounts  # noqa: F401
from app.authoring import models as _authoring  # noqa: F401
from app.demos import models as _demos  # noqa: F401
from app.interview import models as _interview  # noqa: F401
from app.practice import models as _practice  # noqa: F401
from app.settings import get_settings
from app.speech import models as _speech  # noqa: F401
from app.storage.base import Base
from app.storage.database import make_engine
from app.team import models as _team  # noqa: F401
from app.transfer import models as _transfer  # noqa: F401

target_metadata = Base.metadata


def _configure(connection: Connection) -> None:
    context.configure(connection=connection, target_metadata=target_metadata, render_as_batch=True)
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    # A connection handed in by app.storage.migrations.upgrade (`tiercards db upgrade`, tests) wins
    # over settings; pytest-alembic hands in an engine.
    given = context.config.attributes.get("connection")
    if isinstance(given, Connection):
        _configure(given)
        return
    engine = given if isinstance(given, Engine) else make_engine(get_settings(), migrating=True)
    with engine.connect() as connection:
        _configure(connection)
    if given is None:
        engine.dispose()


if context.is_offline_mode():
    context.configure(url=get_settings().database_url, target_metadata=target_metadata, render_as_batch=True)
    with context.begin_transaction():
        context.run_migrations()
else:
    run_migrations_online()
