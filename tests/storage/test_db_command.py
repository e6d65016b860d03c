"""`tiercards db upgrade`, as a container's migrate step runs it: its output goes to logs."""

import os
import secrets
import subprocess
import sys
from pathlib import Path

from sqlalchemy.engine import make_url

from app import PROJECT_ROOT
from tests.services import database_on


def test_db_upgrade_names_the_database_but_never_its_password(postgres_url: str, tmp_path: Path) -> None:
    # The test server trusts loopback, so any password connects; the point is where it shows.
    url = make_url(database_on(postgres_url, f"cli_{secrets.token_hex(6)}")).set(password="s3cret-word")
    done = subprocess.run(
        [sys.executable, "-m", "app.cli", "db", "upgrade"],
        cwd=PROJECT_ROOT,
        env={
            **os.environ,
            "DATA_DIR": str(tmp_path),
            "DATABASE_URL": url.render_as_string(hide_password=False),
        },
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert "database is up to date" in done.stdout and url.database in done.stdout
    assert "s3cret-word" not in done.stdout + done.stderr
