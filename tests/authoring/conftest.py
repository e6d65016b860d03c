"""The author preview in single mode on a content folder of its own, one card served."""

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from app.factory import create_app
from app.settings import Settings
from app.storage import migrations
from tests.factories import card_text, write_card
from tests.helpers.authoring import SERVED
from tests.helpers.clients import with_csrf
from tests.services import database_url


@pytest.fixture
def author_app(tmp_path: Path) -> Iterator[FastAPI]:
    content = tmp_path / "content"
    content.mkdir()
    write_card(content, f"{SERVED}.md", card_text(SERVED, "A served question?"))
    data = tmp_path / "data"
    settings = Settings(
        data_dir=data,
        database_url=database_url(data),
        content_dir=content,
        secret_key="test-only-secret-key-that-is-long-enough",
        content_poll_seconds=0,
        allowed_hosts=["testserver"],
    )
    migrations.upgrade(settings)
    app = create_app(settings)
    yield app
    app.state.db.dispose()


@pytest.fixture
def author(author_app: FastAPI) -> Iterator[TestClient]:
    """The local user, who may author in single mode, with a CSRF token."""
    with TestClient(author_app) as client:
        yield with_csrf(client)
