"""/practice and its due API serve a person's assigned cards before their other new cards (due
reviews still first), and the "Assigned to you" box counts each rating without a reload."""

from collections.abc import Callable
from datetime import timedelta

from bs4 import BeautifulSoup
from fastapi import FastAPI
from fastapi.testclient import TestClient

from app.practice import scheduling
from app.storage.base import utcnow
from app.team.models import Assignment
from tests.factories import DECK
from tests.helpers.accounts import review_as, user_id
from tests.helpers.html import HTMX, soup_of, text_of
from tests.helpers.practice import add


def current_card(soup: BeautifulSoup) -> str | None:
    field = soup.select_one('#practice-card input[name="card_id"]')
    return str(field["value"]) if field else None


def assign_to(app: FastAPI, name: str, card_ids: list[str]) -> None:
    due = utcnow().date() + timedelta(days=2)
    add(app, Assignment(user_id=user_id(app, name), tier="middle", card_ids=card_ids, due=due))


def reveal_and_rate(client: TestClient, card_id: str) -> BeautifulSoup:
    revealed = client.post(
        "/practice/reveal",
        headers=HTMX,
        data={"card_id": card_id, "tier": "middle", "seconds": "20", "text": ""},
    )
    fields = soup_of(revealed).select(".practice-rate input[type=hidden]")
    form = {field["name"]: field.get("value", "") for field in fields}
    return soup_of(client.post("/practice/rate", headers=HTMX, data=form | {"rating": "good"}))


# The two cards a new person would be introduced to last, so only the assignment can put them first.
LAST, SECOND_LAST = scheduling.introduction_order(DECK.values())[:-3:-1]


def test_assigned_cards_come_before_other_new_cards_and_the_box_counts_each_rating(
    team_app: FastAPI, signed_in: Callable[[str], TestClient]
) -> None:
    alice, bob = signed_in("alice"), signed_in("bob")
    assign_to(team_app, "alice", [SECOND_LAST, LAST])
    soup = soup_of(alice.get("/practice"))
    assert current_card(soup) == SECOND_LAST
    assert "0 of 2 reviewed" in text_of(soup, "ul.assigned > li")
    new = [item["card_id"] for item in alice.get("/api/practice/due").json()["new"]]
    assert new[:2] == [SECOND_LAST, LAST]
    assert current_card(soup_of(bob.get("/practice"))) not in (SECOND_LAST, LAST)  # not bob's assignment

    rated = reveal_and_rate(alice, SECOND_LAST)
    assert current_card(rated) == LAST
    box = rated.select_one('[hx-swap-oob="true"] ul.assigned > li')
    assert box is not None and "1 of 2 reviewed" in box.get_text(" ", strip=True)
    rated = reveal_and_rate(alice, LAST)
    emptied = rated.select_one('#practice-panels[hx-swap-oob="true"]')
    assert emptied is not None and emptied.select("ul.assigned") == []  # all done: the box goes


def test_a_due_review_still_comes_before_an_assigned_card(
    team_app: FastAPI, signed_in: Callable[[str], TestClient]
) -> None:
    alice = signed_in("alice")
    first_new = scheduling.introduction_order(DECK.values())[0]
    review_as(team_app, "alice", first_new, "middle", "good", utcnow() - timedelta(days=30))
    assign_to(team_app, "alice", [LAST])
    assert current_card(soup_of(alice.get("/practice"))) == first_new
    due = alice.get("/api/practice/due").json()
    assert [item["card_id"] for item in due["due"]] == [first_new] and due["new"][0]["card_id"] == LAST
