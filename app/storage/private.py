"""The data folder is private: it holds answers, transcripts, recordings and password hashes, so
it and everything in it are the app user's alone (folders 0700, files 0600), whatever the umask.

- a SQLite file (database, queue) is created 0600 before SQLite opens it: SQLite gives its -wal and
  -shm files the database file's mode, whatever the umask;
- the commands that upgrade the database (serve, worker, db upgrade, ...) first take group and
  other access off what is already in the data folder (left by an earlier version, or by a process
  under a looser umask), and make the folders the app fills later;
- the worker runs under PRIVATE_UMASK. The web does not: it also writes the content folder (cards,
  and their git commits), which stays as readable as its operator made it.
"""

import contextlib
import logging
import os
import stat
from pathlib import Path

log = logging.getLogger(__name__)

PRIVATE_UMASK = 0o077
# Permission bits that let the file's group, or anyone, read, write or enter it.
GROUP_AND_OTHERS = 0o077
# What SQLite adds to a database's name for the files beside it.
SQLITE_SIBLINGS = ("-wal", "-shm", "-journal")
# Folders of the data folder that are made on first use by code that does not ask for a mode:
# made here first, private. Exports are spooled to tmp/ (app/transfer/routers/api.py).
FIRST_USE_FOLDERS = ("tmp",)


def private_umask() -> None:
    """From now on this process, and every process it starts, creates files and folders that its
    group and others cannot use (a mode asked for, such as 0644, loses those bits)."""
    os.umask(PRIVATE_UMASK)


def private_folder(folder: Path) -> None:
    """`folder` created 0700 (missing parents too), or an existing one made so."""
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    _owner_only(folder)


def private_tree(folder: Path) -> None:
    """`folder`, and every folder and file in it, made the owner's alone."""
    private_folder(folder)
    for parent, folders, files in os.walk(folder):
        for name in (*folders, *files):
            _owner_only(Path(parent) / name)


def private_data_folder(data_dir: Path) -> None:
    """The data folder and everything in it made private, and its first-use folders made."""
    private_tree(data_dir)
    for name in FIRST_USE_FOLDERS:
        private_folder(data_dir / name)


def private_sqlite(url: str) -> None:
    """The file of a sqlite:/// URL created 0600 if missing (SQLite takes an empty file as a new
    database), its folder 0700 if missing, and it and its -wal, -shm and -journal made 0600."""
    path = url.removeprefix("sqlite:///")
    if path == url or not path or path == ":memory:":
        return
    database = Path(path)
    if not database.parent.exists():
        private_folder(database.parent)
    # Never opened when it is there: closing any descriptor of a file drops every POSIX lock
    # this process holds on it, SQLite's own included (its documented pitfall).
    with contextlib.suppress(FileExistsError):
        os.close(os.open(database, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    for name in ("", *SQLITE_SIBLINGS):
        _owner_only(database.with_name(database.name + name))


def _owner_only(path: Path) -> None:
    """Take group and other access off `path`, if it is there and not a symbolic link (whose target
    may be anyone's)."""
    try:
        mode = path.lstat().st_mode
    except FileNotFoundError:  # a file SQLite or an export deleted meanwhile
        return
    if stat.S_ISLNK(mode) or not mode & GROUP_AND_OTHERS:
        return
    try:
        path.chmod(stat.S_IMODE(mode) & ~GROUP_AND_OTHERS)
    except PermissionError:
        # Another user's file: it stays readable, which the operator must hear about.
        log.warning("cannot make %s private (it is not ours): chmod go-rwx it", path)
