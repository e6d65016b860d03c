"""Members choose whether leads read their answer texts; scores show either way."""

from collections.abc import Callable

from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from tests.factories import OWNER_CARD
from tests.helpers.html import text_of
from tests.helpers.practice import post_attempt

ALICE_TEXT = "alice-visible-answer-51c2"
BOB_TEXT = "bob-hidden-answer-9e0d"


def privacy_state(client: TestClient) -> str:
    page = BeautifulSoup(client.get("/account/privacy").text, "html.parser")
    (state,) = page.select("#answer-privacy .privacy-state")
    return str(state["data-hidden"])


def test_texts_are_visible_to_leads_unless_hidden(
    signed_in: Callable[[str], TestClient], lena: TestClient
) -> None:
    alice, bob = signed_in("alice"), signed_in("bob")
    post_attempt(alice, OWNER_CARD, text=ALICE_TEXT, rating="hard")
    post_attempt(bob, OWNER_CARD, text=BOB_TEXT, rating="easy")
    assert privacy_state(bob) == "false"  # visible unless the member hides them

    hidden = bob.post("/account/privacy", data={"hide_answers": "true"})
    assert hidden.status_code == 200
    assert privacy_state(bob) == "true"

    alices = lena.get("/team/members/alice").text
    assert ALICE_TEXT in alices
    bobs = BeautifulSoup(lena.get("/team/members/bob").text, "html.parser")
    assert BOB_TEXT not in str(bobs)
    (row,) = bobs.select("tr.attempt")
    assert text_of(row, ".result") == "easy"  # the score still shows
    assert row.select_one(".hidden-text") is not None
    assert "answers hidden" in lena.get("/team").text

    bob.post("/account/privacy", data={"hide_answers": "false"})
    assert BOB_TEXT in lena.get("/team/members/bob").text


def test_the_account_page_loads_the_toggle(signed_in: Callable[[str], TestClient]) -> None:
    page = BeautifulSoup(signed_in("alice").get("/account").text, "html.parser")
    section = page.select_one("#answer-privacy")
    assert section is not None and section["hx-get"] == "/account/privacy"
    assert section["hx-select"] == "#answer-privacy"
