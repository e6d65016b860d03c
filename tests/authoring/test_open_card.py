"""A served card opens in the editor from its page: its file's markdown in the box and its
preview beside it, for people who may author; no one else is shown the way or let in."""

from collections.abc import Callable
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from app import PROJECT_ROOT
from tests.factories import OWNER_CARD
from tests.helpers.accounts import new_person
from tests.helpers.authoring import SERVED, textarea_text
from tests.helpers.html import one, soup_of

EDIT = "Edit the card"


def _edit_links(client: TestClient, card_id: str) -> list[str]:
    page = soup_of(client.get(f"/cards/{card_id}").text)
    return [str(a["href"]) for a in page.find_all("a") if a.get_text(strip=True) == EDIT]


def test_a_served_card_opens_with_its_file_and_its_preview(author: TestClient, tmp_path: Path) -> None:
    page = soup_of(author.get("/author", params={"card": SERVED}))  # the old address, redirected
    assert textarea_text(page) == (tmp_path / "content" / f"{SERVED}.md").read_text(encoding="utf-8")
    preview = one(page, "#author-preview")
    assert one(preview, "h1, h2, h3").get_text(strip=True) == "A served question?"
    assert preview.select("p.note") == [], "the card being edited is no clash with itself"
    assert one(page, "#author-form")["data-card"] == SERVED
    assert one(page, "#author-form")["action"] == f"/author/cards/{SERVED}"


def test_an_edit_made_on_disk_is_what_opens_next(author: TestClient, tmp_path: Path) -> None:
    path = tmp_path / "content" / f"{SERVED}.md"
    path.write_text(path.read_text(encoding="utf-8").replace("A served question?", "A reworded question?"))
    page = soup_of(author.get("/author", params={"card": SERVED}))
    assert 'title: "A reworded question?"' in textarea_text(page)


@pytest.mark.parametrize("card", ["no-such-card", "../../etc/passwd", "x" * 5_000, ""])
def test_a_card_that_is_not_served_is_refused_by_name(author: TestClient, card: str) -> None:
    response = author.get("/author", params={"card": card}, headers={"Accept": "text/html"})
    assert 400 <= response.status_code < 500 and response.status_code != 403
    assert "served" in soup_of(response, response.status_code).get_text()


def test_the_card_page_offers_authors_the_preview_and_hides_it_from_members(
    team_app: FastAPI, signed_in: Callable[[str], TestClient]
) -> None:
    with new_person(team_app, "ann", "author", "author pass phrase 9") as ann:
        # The author's page goes into the page cache first; a member must not get its copy.
        assert _edit_links(ann, OWNER_CARD) == [f"/author/cards/{OWNER_CARD}"]
        bob = signed_in("bob")
        assert _edit_links(bob, OWNER_CARD) == []
        # A member reaches the same page to suggest an edit, never to save one.
        suggesting = soup_of(bob.get(f"/author/cards/{OWNER_CARD}"))
        assert one(suggesting, "#author-form button.primary").get_text() == "Send for review"
        assert _edit_links(signed_in("root"), OWNER_CARD) == [f"/author/cards/{OWNER_CARD}"]
        opened = soup_of(ann.get(_edit_links(ann, OWNER_CARD)[0]))
        shipped = PROJECT_ROOT / "content" / f"{OWNER_CARD}.md"
        assert textarea_text(opened) == shipped.read_text(encoding="utf-8")


def test_the_link_from_a_card_page_opens_that_card(author: TestClient) -> None:
    [link] = _edit_links(author, SERVED)
    assert f"id: {SERVED}" in textarea_text(soup_of(author.get(link)))
