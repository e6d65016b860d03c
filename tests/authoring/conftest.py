"""The author preview in single mode on a content folder of its own (one card served, so a text
that takes its id can be told so), and helpers that read the preview as a person sees it."""

from collections.abc import Iterator
from pathlib import Path

import pytest
from bs4 import BeautifulSoup, Tag
from fastapi import FastAPI
from fastapi.testclient import TestClient

from app.factory import create_app
from app.settings import Settings
from app.storage import migrations
from app.web.security import CSRF_COOKIE
from tests.factories import card_text, write_card
from tests.services import database_url

SERVED = "served-card"
HTMX = {"HX-Request": "true"}


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
        client.get("/healthz")
        client.headers["X-CSRF-Token"] = client.cookies[CSRF_COOKIE]
        yield client


def soup(html: str) -> BeautifulSoup:
    return BeautifulSoup(html, "html.parser")


def one(tag: Tag, css: str) -> Tag:
    """The one element `css` finds in `tag`; it must be there."""
    found = tag.select_one(css)
    assert found is not None, css
    return found


def preview_of(client: TestClient, text: str, **form: str) -> Tag:
    """The preview the live update swaps in for `text`."""
    response = client.post("/author", data={"text": text, **form}, headers=HTMX)
    assert response.status_code == 200, response.text
    return one(soup(response.text), "#author-preview")


def problems(preview: Tag) -> list[str]:
    """Each problem as the list shows it: 'line N: message'."""
    return [" ".join(li.get_text().split()) for li in preview.select(".author-problems li")]


def textarea_text(page: BeautifulSoup) -> str:
    """The text a browser puts in the box: it drops the one line break right after the tag."""
    return one(page, "textarea[name=text]").get_text().removeprefix("\n")
