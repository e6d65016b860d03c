"""Fixtures the practice tests share."""

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi import FastAPI

from app.content.catalogue import Catalogue
from app.content.dependencies import get_catalogue


@pytest.fixture
def content_folder(app: FastAPI, tmp_path: Path) -> Iterator[Path]:
    """An empty content folder of our own, served instead of content/ (edits show at once)."""
    catalogue = Catalogue(tmp_path, poll_seconds=0)
    app.dependency_overrides[get_catalogue] = lambda: catalogue
    yield tmp_path
    app.dependency_overrides.pop(get_catalogue, None)
