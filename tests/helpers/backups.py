"""`tiercards backup` and `tiercards restore` run as an operator runs them, on a data folder."""

from pathlib import Path

from sqlalchemy import text

from tests.services import engine_for


def attempt_ids(data_dir: Path) -> set[str]:
    """Every answer stored in the database of the app whose data folder is `data_dir`."""
    engine = engine_for(data_dir)
    try:
        with engine.connect() as connection:
            return {str(row[0]) for row in connection.execute(text("SELECT id FROM attempts"))}
    finally:
        engine.dispose()
