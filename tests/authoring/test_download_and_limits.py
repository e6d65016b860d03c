"""The file an author downloads is exactly the text typed, named after its id; text past the limit
is refused with a sentence that says so; and nothing the author sends is kept: not in the content
folder, not in the database (where the API's checks are only counted)."""

import json
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import func, inspect, select, table

from app.accounts.models import AuditEvent
from app.authoring.schemas import MAX_CARD_CHARS
from tests.factories import card_text
from tests.helpers.html import HTMX, soup_of

TOO_LONG = "The card's markdown must be at most 80000 characters."


def _download(client: TestClient, text: str) -> tuple[str, str]:
    """The downloaded file's name and text."""
    response = client.post("/author/download", data={"text": text})
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == "text/markdown; charset=utf-8"
    assert response.headers["cache-control"] == "no-store"
    disposition = response.headers["content-disposition"]
    assert disposition.startswith("attachment; filename=")
    return disposition.split("filename=", 1)[1].strip('"'), response.content.decode("utf-8")


def test_the_download_is_exactly_the_text_named_after_its_id(author: TestClient) -> None:
    text = card_text("cache-before-shuffle", "Where does “cache” go? 🚀") + "\n\n  trailing spaces kept  \n"
    assert _download(author, text) == ("cache-before-shuffle.md", text)


def test_a_browser_s_line_breaks_come_back_as_the_box_holds_them(author: TestClient) -> None:
    """A form sends the box's line breaks as CRLF; the file has the box's own."""
    text = card_text()
    assert _download(author, text.replace("\n", "\r\n")) == ("sample-card.md", text)


@pytest.mark.parametrize(
    ("text", "name"),
    [
        (card_text("half-written", **{"## Basics": ""}), "half-written.md"),  # broken, yet named
        ("---\nid: 'quoted-id'\n", "quoted-id.md"),
        ("---\nid: Not A Valid Id\n---\n", "card.md"),
        ("just some notes", "card.md"),
        ("", "card.md"),
    ],
)
def test_a_card_with_problems_downloads_too(author: TestClient, text: str, name: str) -> None:
    assert _download(author, text) == (name, text)


def test_text_past_the_limit_is_refused_with_a_sentence(author: TestClient) -> None:
    text = card_text() + "x" * (MAX_CARD_CHARS - len(card_text()) + 1)
    live = author.post("/author", data={"text": text}, headers=HTMX)
    assert live.status_code == 422
    alert = soup_of(live.text).select_one("#author-preview [role=alert]")
    assert alert is not None and alert.get_text(strip=True) == TOO_LONG

    refused = author.post("/author/download", data={"text": text}, headers={"Accept": "text/html"})
    assert refused.status_code == 422
    assert TOO_LONG in soup_of(refused.text).get_text()

    checked = author.post("/api/author/check", json={"text": text})
    assert checked.status_code == 422
    assert checked.json()["detail"][0]["loc"] == ["body", "text"]

    # Exactly at the limit is still a preview.
    at_limit = author.post("/author", data={"text": text[:-1]}, headers=HTMX)
    assert at_limit.status_code == 200


@pytest.mark.parametrize("extra", [0, 1])
def test_the_limit_refuses_before_the_body_cap_however_the_text_is_escaped(
    author: TestClient, extra: int
) -> None:
    """Twelve bytes a character, the most JSON's escapes or a form's percent-encoding take."""
    text = "🚀" * (MAX_CARD_CHARS + extra)
    sent = json.dumps({"text": text})  # ensure_ascii: each rocket as two \u escapes
    assert len(sent) > 12 * MAX_CARD_CHARS
    checked = author.post("/api/author/check", content=sent, headers={"Content-Type": "application/json"})
    assert checked.status_code == (200 if extra == 0 else 422)
    live = author.post("/author", data={"text": text}, headers=HTMX)
    assert live.status_code == (200 if extra == 0 else 422)


def test_a_body_past_the_server_cap_is_refused_before_it_is_read(author: TestClient) -> None:
    response = author.post("/author", data={"text": "x" * (2**20 + 1)}, headers=HTMX)
    assert response.status_code == 413
    assert response.json()["detail"] == "the request body is larger than 1 MB"


def _row_counts(app: FastAPI) -> dict[str, int]:
    with app.state.db.read_sessions() as session:
        names = inspect(session.connection()).get_table_names()
        return {name: session.scalar(select(func.count()).select_from(table(name))) or 0 for name in names}


def _files(folder: Path) -> dict[str, tuple[int, int]]:
    return {str(p.relative_to(folder)): (p.stat().st_size, p.stat().st_mtime_ns) for p in folder.rglob("*")}


def test_nothing_is_stored(author_app: FastAPI, author: TestClient) -> None:
    content = author_app.state.settings.content_dir
    rows, files = _row_counts(author_app), _files(content)
    assert rows and files
    text = card_text("kept-nowhere")
    for path in ("/author", "/author/download"):
        assert author.post(path, data={"text": text}).status_code == 200
    assert author.post("/author", data={"text": text}, headers=HTMX).status_code == 200
    assert author.post("/api/author/check", json={"text": text}).status_code == 200
    assert author.post("/author", data={"text": "x" * (MAX_CARD_CHARS + 1)}, headers=HTMX).status_code == 422
    # The API's check is counted for its rate limit: one audit row, of who and when, not what.
    assert _row_counts(author_app) == rows | {"audit_events": rows["audit_events"] + 1}
    with author_app.state.db.read_sessions() as session:
        counted = session.scalars(select(AuditEvent).where(AuditEvent.kind == "author_check")).one()
        assert counted.detail == {} and "kept-nowhere" not in str(vars(counted))
    assert _files(content) == files
    # Nor is it served: the catalogue still has only its own card.
    assert [card["id"] for card in author.get("/api/cards").json()["cards"]] == ["served-card"]
