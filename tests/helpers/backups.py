"""`tiercards backup` and `tiercards restore` run as an operator runs them, on a data folder."""

import os
import subprocess
import sys
from pathlib import Path

from sqlalchemy import text

from app import PROJECT_ROOT
from tests.servers import data_env
from tests.services import engine_for


def tiercards(data_dir: Path, *args: str, content: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, **data_env(data_dir), **({"CONTENT_DIR": str(content)} if content else {})}
    return subprocess.run(
        [sys.executable, "-m", "app.cli", *args],
        cwd=PROJECT_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


def attempt_ids(data_dir: Path) -> set[str]:
    """Every answer stored in the database of the app whose data folder is `data_dir`."""
    engine = engine_for(data_dir)
    try:
        with engine.connect() as connection:
            return {str(row[0]) for row in connection.execute(text("SELECT id FROM attempts"))}
    finally:
        engine.dispose()
