"""A member suggests an edit from a card's page: the editor with a reason, its live preview, and
what became of the edit on their account page."""

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi import FastAPI

from tests.factories import OWNER_CARD
from tests.helpers.authoring import edited, editing_team, signed_in, textarea_text
from tests.helpers.html import HTMX, one, soup_of

OLD = "the buffer holds batches when it is last"
NEW = "the buffer holds whole batches when it is last"


@pytest.fixture
def team(tmp_path: Path) -> Iterator[tuple[FastAPI, Path]]:
    with editing_team(tmp_path) as made:
        yield made


def test_a_member_suggests_from_the_card_page_and_follows_it_on_their_account(
    team: tuple[FastAPI, Path],
) -> None:
    app, content = team
    bob = signed_in(app, "bob")
    card = soup_of(bob.get(f"/cards/{OWNER_CARD}"))
    [link] = [a["href"] for a in card.select(".edit-card a")]
    assert link == f"/author/cards/{OWNER_CARD}"
    assert [a.get_text() for a in card.select(".edit-card a")] == ["Suggest an edit"]
    page = soup_of(bob.get(link))
    text = textarea_text(page)
    base = one(page, "textarea[name=base]").get_text().removeprefix("\n")
    preview = soup_of(
        bob.post(f"/author/cards/{OWNER_CARD}/check", data={"text": edited(text, OLD, NEW)}, headers=HTMX)
    )
    assert one(preview, "#author-preview")["data-state"] == "card"
    sent = bob.post(link, data={"text": edited(text, OLD, NEW), "base": base, "reason": "whole batches"})
    assert sent.status_code == 303 and sent.headers["location"] == "/account#suggested-edits"
    mine = one(soup_of(bob.get("/account")), "#suggested-edits")
    assert "waiting for review" in mine.get_text()
    assert OLD in (content / f"{OWNER_CARD}.md").read_text(encoding="utf-8")


def test_a_suggestion_without_a_reason_keeps_the_text_and_stores_nothing(team: tuple[FastAPI, Path]) -> None:
    app, _ = team
    bob = signed_in(app, "bob")
    page = soup_of(bob.get(f"/author/cards/{OWNER_CARD}"))
    text, base = textarea_text(page), one(page, "textarea[name=base]").get_text().removeprefix("\n")
    refused = bob.post(
        f"/author/cards/{OWNER_CARD}", data={"text": edited(text, OLD, NEW), "base": base, "reason": " "}
    )
    assert refused.status_code == 422
    again = soup_of(refused, 422)
    assert "Why it should change" in one(again, "#save-errors").get_text()
    assert NEW in textarea_text(again)
    assert bob.get("/api/proposals").json() == []


def test_a_draft_takes_no_suggestions(team: tuple[FastAPI, Path]) -> None:
    app, content = team
    text = (content / f"{OWNER_CARD}.md").read_text(encoding="utf-8")
    (content / "drafted.md").write_text(
        edited(text, f"id: {OWNER_CARD}", "id: drafted\ndraft: true"), encoding="utf-8"
    )
    app.state.catalogue.reload()
    bob = signed_in(app, "bob")
    assert bob.get("/author/cards/drafted").status_code == 404
    assert bob.post("/api/cards/drafted/proposals", json={"markdown": text, "reason": "x"}).status_code == 404
