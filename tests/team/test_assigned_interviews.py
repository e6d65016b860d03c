"""A lead who assigns a mock interview sees the member's session of it: the summary's figures
always, the answers only where the member lets leads read them."""

from collections.abc import Callable

from bs4 import BeautifulSoup
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import func, select

from app.interview.models import InterviewSession
from tests.factories import OWNER_CARD
from tests.helpers.html import one, soup_of, text_of
from tests.helpers.interview import MISSES_THE_FIFTH, answer, rate
from tests.helpers.team import CACHE, assign, interview_panel

SAID = "It overlaps producing with consuming"


def start_assigned(team_app: FastAPI, member: TestClient, name: str) -> str:
    """Start the interview from the member's box on /interview, as its button does."""
    panel = interview_panel(team_app, name)
    assert panel is not None
    (form,) = panel.select("form")
    sent: dict[str, list[str]] = {}
    for field in form.select("input[type=hidden]"):
        if field["name"] != "csrf_token":
            sent.setdefault(str(field["name"]), []).append(str(field["value"]))
    response = member.post("/interview", data=sent, follow_redirects=False)
    assert response.status_code == 303, response.text
    return str(response.headers["location"])


def take(member: TestClient, url: str) -> None:
    answer(member, url, MISSES_THE_FIFTH)
    rate(member, url, "hard")
    answer(member, url, "I would not know where to start.")  # its follow-up
    rate(member, url, "again")
    answer(member, url, "Caching after shuffling freezes the order.")
    rate(member, url, "good")


def listed(lead: TestClient, name: str) -> list[str]:
    page = BeautifulSoup(lead.get(f"/team/members/{name}").text, "html.parser")
    return [str(a["href"]) for a in page.select(".taken-interviews a")]


def test_the_lead_sees_the_figures_and_the_answers_only_where_shared(
    team_app: FastAPI, signed_in: Callable[[str], TestClient], lena: TestClient
) -> None:
    alice, bob = signed_in("alice"), signed_in("bob")
    assign(lena, card_ids=[OWNER_CARD, CACHE], tier="middle", kind="interview")
    alices = start_assigned(team_app, alice, "alice")
    take(alice, alices)
    bob.post("/account/privacy", data={"hide_answers": "true"})
    bobs = start_assigned(team_app, bob, "bob")
    take(bob, bobs)
    alice.post("/interview", data={"source": "cards", "card": OWNER_CARD})  # one of her own

    (seen,) = listed(lena, "alice")  # the assigned one only
    assert seen.endswith(alices.removeprefix("/interview/"))
    page = soup_of(lena.get(seen))
    cards = page.select(".interview-card")
    assert [c["data-card-id"] for c in cards] == [OWNER_CARD, CACHE]
    assert text_of(cards[0], ".answered-time").startswith("12 s")
    assert text_of(cards[0], ".answered-rating") == "hard"
    assert "missed:" in text_of(cards[0], ".answered-read")
    assert SAID in text_of(cards[0], ".answered-text")
    assert not page.select(".interview-weakest, .interview-previous")  # the member's, not the lead's
    assert "rate it" not in page.get_text()

    (seen,) = listed(lena, "bob")
    page = soup_of(lena.get(seen))
    assert SAID not in str(page)
    assert page.select(".answered-rating") and page.select("dd.hidden-text")
    assert one(page, ".privacy-state")["data-hidden"] == "true"


def test_a_session_not_assigned_or_not_the_members_is_not_found(
    team_app: FastAPI, signed_in: Callable[[str], TestClient], lena: TestClient
) -> None:
    alice = signed_in("alice")
    own = alice.post("/interview", data={"source": "cards", "card": OWNER_CARD}, follow_redirects=False)
    own_id = str(own.headers["location"]).rsplit("/", 1)[-1]
    assert lena.get(f"/team/members/alice/interviews/{own_id}").status_code == 404
    assign(lena, card_ids=[OWNER_CARD], kind="interview", member="alice")
    assigned = start_assigned(team_app, alice, "alice").rsplit("/", 1)[-1]
    assert lena.get(f"/team/members/bob/interviews/{assigned}").status_code == 404
    begun = soup_of(lena.get(f"/team/members/alice/interviews/{assigned}"))
    assert text_of(begun, "#interview-step-heading + p").startswith("Not finished yet")
    assert alice.get(f"/team/members/alice/interviews/{assigned}").status_code == 403


def test_an_assignment_not_given_to_you_is_refused_and_stores_nothing(
    team_app: FastAPI, signed_in: Callable[[str], TestClient], lena: TestClient
) -> None:
    alice, bob = signed_in("alice"), signed_in("bob")
    assign(lena, card_ids=[OWNER_CARD], kind="interview", member="alice")
    panel = interview_panel(team_app, "alice")
    assert panel is not None
    assignment = str(one(panel, "input[name=assignment]")["value"])
    for forged in (assignment, "999999"):
        refused = bob.post("/interview", data={"source": "cards", "card": OWNER_CARD, "assignment": forged})
        assert "not one assigned to you" in text_of(soup_of(refused, 422), ".errors")
    with team_app.state.db.read_sessions() as session:
        assert session.scalar(select(func.count()).select_from(InterviewSession)) == 0
    assert alice.get("/interview").status_code == 200
