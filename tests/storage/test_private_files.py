"""The data folder holds answers, transcripts, recordings and password hashes: it and every file in
it are the app user's alone (folders 0700, files 0600), whatever umask the app is started under."""

import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

from app import PROJECT_ROOT
from tests.helpers.demos import wait_for
from tests.servers import data_env, start_server, stop

# The usual default: what a process left to it creates, its group and everyone else may read.
LOOSE_UMASK = 0o022
GROUP_AND_OTHERS = 0o077


@contextmanager
def loose_umask() -> Iterator[None]:
    """Processes started here inherit LOOSE_UMASK, whatever this one's was."""
    before = os.umask(LOOSE_UMASK)
    try:
        yield
    finally:
        os.umask(before)


def shared(folder: Path) -> dict[str, str]:
    """Each path in `folder` (itself as ".") that its group or others may use, with its mode."""
    found = {}
    for path in [folder, *folder.rglob("*")]:
        mode = stat.S_IMODE(path.lstat().st_mode)
        if mode & GROUP_AND_OTHERS and not path.is_symlink():
            found[str(path.relative_to(folder))] = oct(mode)
    return found


def db_upgrade(data_dir: Path) -> None:
    with loose_umask():
        done = subprocess.run(
            [sys.executable, "-m", "app.cli", "db", "upgrade"],
            cwd=PROJECT_ROOT,
            env={**os.environ, **data_env(data_dir)},
            capture_output=True,
            text=True,
        )
    assert done.returncode == 0, done.stderr


def test_db_upgrade_creates_the_data_folder_private(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    db_upgrade(data_dir)
    assert data_dir.is_dir() and any(data_dir.iterdir())
    assert shared(data_dir) == {}


def test_db_upgrade_makes_private_what_an_earlier_version_left_readable(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    db_upgrade(data_dir)
    (data_dir / "tmp").mkdir(mode=0o755, exist_ok=True)
    (data_dir / "backup.sql").write_text("answers")
    for path in [data_dir, *data_dir.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    db_upgrade(data_dir)
    assert shared(data_dir) == {}


def workers(url: str) -> list[object]:
    return list(httpx.get(f"{url}/api/workers", timeout=5).json()["workers"])


def test_a_served_app_and_its_worker_keep_every_file_private(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    with loose_umask():
        process, url = start_server(data_dir)
    try:
        # The worker opens the database and the queue for itself: its files count too.
        wait_for(lambda: workers(url), 180, 0.5, "the worker to beat")
        # An export is spooled to a file in DATA_DIR/tmp.
        assert httpx.get(f"{url}/api/export.json", timeout=30).status_code == 200
        assert (data_dir / "tmp").is_dir() and (data_dir / "queue.db").is_file()
        assert shared(data_dir) == {}
    finally:
        stop(process)
    assert shared(data_dir) == {}
