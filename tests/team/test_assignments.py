"""A lead assigns cards or a topic; members see what is open on /practice, first; the dashboard
counts who is done; deleting removes it."""

from collections.abc import Callable
from datetime import date, timedelta

from bs4 import BeautifulSoup, Tag
from fastapi import FastAPI
from fastapi.testclient import TestClient

from app.storage.base import utcnow
from app.team.models import Assignment
from tests.factories import OWNER_CARD
from tests.helpers.accounts import user_id
from tests.helpers.html import text_of
from tests.helpers.practice import add, post_attempt

CACHE = "tf-data-cache-shuffle-order"


def in_days(days: int) -> str:
    return (utcnow().date() + timedelta(days=days)).isoformat()


def assign(lead: TestClient, **form: object) -> None:
    response = lead.post("/team/assignments", data={"tier": "middle", "due": in_days(3)} | form)
    assert response.status_code == 303, response.text


def dashboard_rows(lead: TestClient) -> dict[str, Tag]:
    page = BeautifulSoup(lead.get("/team").text, "html.parser")
    return {str(row["data-assignment-id"]): row for row in page.select("tr.assignment")}


def done(row: Tag) -> str:
    return text_of(row, ".done-count")


def open_on_practice(client: TestClient) -> list[str]:
    page = BeautifulSoup(client.get("/practice").text, "html.parser")
    return [str(li["data-assignment-id"]) for li in page.select("ul.assigned > li")]


def test_assign_see_first_complete_and_delete(
    signed_in: Callable[[str], TestClient], lena: TestClient
) -> None:
    alice, bob = signed_in("alice"), signed_in("bob")
    post_attempt(alice, OWNER_CARD, tier="senior")  # before the assignment: does not count
    assign(lena, card_ids=[OWNER_CARD, CACHE], member="alice")
    assign(lena, topic="performance", tier="senior", due=in_days(1))  # the topic of OWNER_CARD only
    rows = dashboard_rows(lena)
    assert [done(row) for row in rows.values()] == ["0 of 3", "0 of 1"]  # soonest due first
    everyone, alices = rows

    page = alice.get("/practice").text
    assert page.index('id="assigned-heading"') < page.index("practice-card")  # on top of the card
    assert open_on_practice(alice) == [everyone, alices]
    assert open_on_practice(bob) == [everyone]
    assert open_on_practice(lena) == []  # "everyone" leaves out who assigned it

    post_attempt(alice, OWNER_CARD, tier="senior")
    post_attempt(alice, OWNER_CARD, tier="middle")
    assert open_on_practice(alice) == [alices]
    listed = BeautifulSoup(alice.get("/practice").text, "html.parser").select("ul.assigned > li a")
    assert [a["href"] for a in listed] == [f"/cards/{CACHE}?tier=middle"]  # what is left to do
    assert [done(row) for row in dashboard_rows(lena).values()] == ["1 of 3", "0 of 1"]
    post_attempt(alice, CACHE, tier="middle", kind="solid", rating="again")
    assert open_on_practice(alice) == []
    assert done(dashboard_rows(lena)[alices]) == "1 of 1"

    assert lena.post(f"/team/assignments/{alices}/delete").status_code == 303
    assert list(dashboard_rows(lena)) == [everyone]
    assert lena.post(f"/team/assignments/{alices}/delete").status_code == 404


def test_overdue_is_marked(team_app: FastAPI, lena: TestClient) -> None:
    yesterday = utcnow().date() - timedelta(days=1)
    add(
        team_app,
        Assignment(user_id=user_id(team_app, "bob"), tier="middle", card_ids=[OWNER_CARD], due=yesterday),
    )
    (row,) = dashboard_rows(lena).values()
    assert "overdue" in row["class"] and row.select_one(".overdue-badge") is not None


def test_refusals_keep_the_form(lena: TestClient) -> None:
    for form, message in (
        ({}, "choose some cards or a topic"),
        ({"card_ids": ["no-such-card"]}, "no card with id no-such-card"),
        ({"topic": "knitting"}, "no card has the topic"),
        ({"card_ids": [OWNER_CARD], "member": "nobody"}, "no active member named"),
        ({"card_ids": [OWNER_CARD], "due": date(2000, 1, 1).isoformat()}, "the due date has passed"),
        ({"card_ids": [OWNER_CARD], "tier": "wizard"}, "tier"),
    ):
        response = lena.post("/team/assignments", data={"tier": "middle", "due": in_days(2)} | form)
        assert response.status_code == 422, form
        assert message in response.text, form
    assert dashboard_rows(lena) == {}
