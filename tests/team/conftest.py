"""The accounts tests' team (alice and bob, members; root, an admin) plus lena, a lead."""

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from app import PROJECT_ROOT
from app.content.catalogue import Catalogue
from app.content.dependencies import get_catalogue
from tests.helpers.accounts import new_person

LEAD_PASSWORD = "lead pass phrase 42"


@pytest.fixture
def lena(team_app: FastAPI) -> Iterator[TestClient]:
    with new_person(team_app, "lena", "lead", LEAD_PASSWORD) as client:
        yield client


@pytest.fixture
def own_content(team_app: FastAPI, tmp_path: Path) -> Iterator[Path]:
    """A content folder of our own (the project's cards, copied), served instead of content/."""
    folder = tmp_path / "content"
    folder.mkdir()
    for card in (PROJECT_ROOT / "content").glob("tf-*.md"):
        (folder / card.name).write_text(card.read_text(encoding="utf-8"), encoding="utf-8")
    catalogue = Catalogue(folder, poll_seconds=0)
    team_app.dependency_overrides[get_catalogue] = lambda: catalogue
    yield folder
    team_app.dependency_overrides.pop(get_catalogue, None)
