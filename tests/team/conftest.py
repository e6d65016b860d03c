"""The accounts tests' team (alice and bob, members; root, an admin) plus lena, a lead."""

from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

import pytest
from bs4 import Tag
from fastapi import FastAPI
from fastapi.testclient import TestClient

from app import PROJECT_ROOT
from app.accounts import service
from app.accounts.models import User
from app.content.catalogue import Catalogue
from app.content.dependencies import get_catalogue
from app.practice import scheduling
from tests.accounts.conftest import fresh_client, new_person, sign_in, signed_in, team_app  # noqa: F401

LEAD_PASSWORD = "lead pass phrase 42"


@pytest.fixture
def lena(team_app: FastAPI) -> Iterator[TestClient]:  # noqa: F811
    with new_person(team_app, "lena", "lead", LEAD_PASSWORD) as client:
        yield client


def text_of(tag: Tag, css: str) -> str:
    """The text of the one element `css` finds in `tag`; it must be there."""
    found = tag.select_one(css)
    assert found is not None, css
    return found.get_text(" ", strip=True)


def user_id(app: FastAPI, name: str) -> int:
    with app.state.db.read_sessions() as session:
        user = service.user_named(session, name)
        assert isinstance(user, User)
        return user.id


def review_as(app: FastAPI, name: str, card_id: str, tier: str, rating: str, at: datetime) -> None:
    """A review rated in /practice without an answer, at a moment of the test's choosing."""
    with app.state.db.write_sessions() as session:
        scheduling.review(
            session,
            user_id=user_id(app, name),
            card_id=card_id,
            tier=tier,
            rating=scheduling.RATING_BY_NAME[rating],
            duration_ms=1000,
            at=at,
        )
        session.commit()


@pytest.fixture
def own_content(team_app: FastAPI, tmp_path: Path) -> Iterator[Path]:  # noqa: F811
    """A content folder of our own (the project's cards, copied), served instead of content/."""
    folder = tmp_path / "content"
    folder.mkdir()
    for card in (PROJECT_ROOT / "content").glob("tf-*.md"):
        (folder / card.name).write_text(card.read_text(encoding="utf-8"), encoding="utf-8")
    catalogue = Catalogue(folder, poll_seconds=0)
    team_app.dependency_overrides[get_catalogue] = lambda: catalogue
    yield folder
    team_app.dependency_overrides.pop(get_catalogue, None)
