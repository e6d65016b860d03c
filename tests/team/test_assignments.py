"""A lead assigns cards or a topic; members see what is open on /practice, first; the dashboard
counts who is done; deleting removes it."""

from collections.abc import Callable
from datetime import date, timedelta

import pytest
from bs4 import BeautifulSoup, Tag
from fastapi import FastAPI
from fastapi.testclient import TestClient

from app import PROJECT_ROOT
from app.interview.schemas import MAX_QUESTIONS
from app.storage.base import utcnow
from app.team import assignments
from app.team.models import Assignment
from app.team.schemas import KINDS
from tests.factories import OWNER_CARD
from tests.helpers.accounts import user_id
from tests.helpers.html import text_of
from tests.helpers.practice import add, post_attempt
from tests.helpers.team import CACHE, assign, in_days, interview_panel


def dashboard_rows(lead: TestClient) -> dict[str, Tag]:
    page = BeautifulSoup(lead.get("/team").text, "html.parser")
    return {str(row["data-assignment-id"]): row for row in page.select("tr.assignment")}


def done(row: Tag) -> str:
    return text_of(row, ".done-count")


def names(row: Tag, side: str) -> list[str]:
    return [name.get_text(strip=True) for name in row.select(f'[data-names="{side}"] .name')]


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
        ({"card_ids": [OWNER_CARD], "kind": "exam"}, "interview"),
    ):
        response = lena.post("/team/assignments", data={"tier": "middle", "due": in_days(2)} | form)
        assert response.status_code == 422, form
        assert message in response.text, form
    assert dashboard_rows(lena) == {}


def test_the_dashboard_names_who_is_done_and_who_is_not_a_few_at_a_time(
    signed_in: Callable[[str], TestClient], lena: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    alice = signed_in("alice")
    assign(lena, card_ids=[OWNER_CARD])  # everyone on the team but lena
    post_attempt(alice, OWNER_CARD, tier="middle")
    (row,) = dashboard_rows(lena).values()
    assert done(row) == "1 of 3"
    assert names(row, "done") == ["alice"] and names(row, "waiting") == ["bob", "root"]
    monkeypatch.setattr(assignments, "NAMES_SHOWN", 1)  # a big team: the first few, then a count
    (row,) = dashboard_rows(lena).values()
    assert names(row, "waiting") == ["bob"] and "and 1 more" in text_of(row, '[data-names="waiting"]')
    assert names(row, "done") == ["alice"] and "more" not in text_of(row, '[data-names="done"]')


def test_a_mock_interview_is_assigned_started_from_its_box_and_done_like_cards(
    team_app: FastAPI, signed_in: Callable[[str], TestClient], lena: TestClient
) -> None:
    alice = signed_in("alice")
    page = BeautifulSoup(lena.get("/team").text, "html.parser")
    choices = page.select('.assign-form input[name="kind"]')
    assert [box["value"] for box in choices] == list(KINDS)
    assert [text_of(box.find_parent("label"), "span") for box in choices] == list(KINDS.values())
    assign(lena, card_ids=[OWNER_CARD, CACHE], member="alice", tier="senior", kind="interview")
    (row,) = dashboard_rows(lena).values()
    assert KINDS["interview"] in row.get_text(" ", strip=True) and done(row) == "0 of 1"
    assert open_on_practice(alice) == []  # taken on /interview, not card by card on /practice
    assert interview_panel(team_app, "bob") is None

    panel = interview_panel(team_app, "alice")
    assert panel is not None
    (form,) = panel.select("form")
    assert (form["method"], form["action"]) == ("post", "/interview")
    fields = [(str(field["name"]), str(field["value"])) for field in form.select("input[type=hidden]")]
    assert [value for name, value in fields if name == "card"] == [OWNER_CARD, CACHE]
    assert {("source", "cards"), ("tier", "senior"), ("csrf_token", "the-token")} <= set(fields)
    assert "0 of 2 rated or revealed" in form.get_text(" ", strip=True)
    # It counts reviews: an answer left unrated is not one, so no page may say "answered".
    team_hint = BeautifulSoup(lena.get("/team").text, "html.parser").select_one(".assign-form ~ .hint")
    assert team_hint is not None
    hints = [text_of(panel, ".hint"), team_hint.get_text(" ", strip=True)]
    assert all("rated or revealed" in hint and "answered" not in hint for hint in hints), hints

    # Done as a card assignment is: each card rated or revealed at that depth since it was assigned.
    post_attempt(alice, OWNER_CARD, tier="middle")
    post_attempt(alice, OWNER_CARD, tier="senior")
    panel = interview_panel(team_app, "alice")
    assert panel is not None and "1 of 2" in panel.get_text(" ", strip=True)
    post_attempt(alice, CACHE, tier="senior", kind="solid", rating="good")
    assert interview_panel(team_app, "alice") is None
    assert done(dashboard_rows(lena)[str(row["data-assignment-id"])]) == "1 of 1"


def test_a_mock_interview_of_more_cards_than_one_interview_asks_is_refused(lena: TestClient) -> None:
    served = [path.stem for path in sorted((PROJECT_ROOT / "content").glob("*-*.md"))]
    too_many = served[: MAX_QUESTIONS + 1]
    for form in ({"card_ids": too_many}, {"topic": "tf.data"}):
        response = lena.post(
            "/team/assignments", data={"tier": "middle", "due": in_days(2), "kind": "interview"} | form
        )
        assert response.status_code == 422, form
        assert f"a mock interview asks at most {MAX_QUESTIONS} cards" in BeautifulSoup(
            response.text, "html.parser"
        ).get_text(" ", strip=True), form
    assert dashboard_rows(lena) == {}
    # The same cards as cards to review are fine: only one interview is bounded.
    assign(lena, card_ids=too_many)
    assert len(dashboard_rows(lena)) == 1
