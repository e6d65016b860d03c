"""Writes that survive a crash: a file renamed into place lives in its folder's entry, so the
folder is synced too."""

import os
from pathlib import Path


def sync_folder(folder: Path) -> None:
    """Make the renames and creations in `folder` durable."""
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
