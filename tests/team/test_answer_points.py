"""/team, per card: the answer points members' own ticks miss most on rated basics and solid
answers (everyone's, as scores are), and the pitfalls the checker reads their answers asserting
(only of members who let leads read their answers); over the last 30 days, no text, no names."""

import dataclasses
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from bs4 import BeautifulSoup, Tag
from fastapi import FastAPI
from fastapi.testclient import TestClient

from app.accounts.models import User
from app.content.catalogue import Snapshot
from app.coverage.measured import MEASURED
from app.practice.models import AttemptCoverage
from app.storage.base import utcnow
from app.team import answers
from tests.factories import DECK, OWNER_CARD, make_attempt
from tests.helpers.accounts import user_id
from tests.helpers.html import soup_of, text_of
from tests.helpers.practice import write_session

CARD = DECK[OWNER_CARD]
SECRET = "a sentence only alice wrote"


def answer(
    app: FastAPI, name: str, *, ticked: list[int], asserts: list[int] | None = None, **fields: Any
) -> None:
    """A rated solid answer of `name`'s ticking those points; `asserts`: the pitfalls the checker
    suggested it asserts (None: not read by the checker)."""
    attempt = make_attempt(
        user_id=user_id(app, name),
        points=[CARD.points[i].key for i in ticked],
        **{"text": SECRET, **fields},
    )
    with write_session(app) as session:
        session.add(attempt)
        session.flush()
        if asserts is not None:
            pitfalls = [{"id": CARD.pitfalls[i].key, "start": 0, "end": 5} for i in asserts]
            # merge: an answer may already carry the suggestions its submit computed.
            session.merge(
                AttemptCoverage(attempt_id=attempt.id, method="lexical", points=[], pitfalls=pitfalls)
            )


def card_box(lena: TestClient) -> Tag:
    page = soup_of(lena.get("/team"))
    box = page.select_one(f'.team-answers [data-card-id="{OWNER_CARD}"]')
    assert isinstance(box, Tag), page.select_one(".team-answers")
    return box


def missed(box: Tag) -> dict[str, str]:
    return {str(li["data-point"]): text_of(li, ".count") for li in box.select("li[data-point]")}


def asserted(box: Tag) -> dict[str, str]:
    return {str(li["data-pitfall"]): text_of(li, ".count") for li in box.select("li[data-pitfall]")}


@pytest.fixture
def hiding_bob(signed_in: Callable[[str], TestClient]) -> None:
    assert signed_in("bob").post("/account/privacy", data={"hide_answers": "true"}).is_success


def test_points_missed_most_come_from_everyones_final_ticks(
    team_app: FastAPI, lena: TestClient, hiding_bob: None
) -> None:
    answer(team_app, "alice", ticked=[0, 1])
    answer(team_app, "alice", ticked=[0])
    answer(team_app, "bob", ticked=[0, 1, 2])  # hides his answers: his ticks still count
    # Not rated answers, revealed ones, follow-ups and answers older than 30 days are left out.
    answer(team_app, "alice", ticked=[], rating=None)
    answer(team_app, "alice", ticked=[], kind="follow-up", follow_up=0)
    answer(team_app, "bob", ticked=[], text=None, revealed=True, rating="again")
    answer(team_app, "alice", ticked=[], created_at=utcnow() - timedelta(days=31))
    shown = missed(card_box(lena))
    keys = [point.key for point in CARD.points]
    # The three most missed, most first (point 1, missed once, is fourth; point 0 never missed).
    assert list(shown) == [keys[3], keys[4], keys[2]]
    assert shown[keys[3]] == "missed in 3 of 3 rated answers"
    assert shown[keys[2]] == "missed in 2 of 3 rated answers"


def test_a_disabled_persons_newer_answers_are_not_the_teams(team_app: FastAPI, lena: TestClient) -> None:
    answer(team_app, "alice", ticked=[0, 1, 2, 3])
    answer(team_app, "bob", ticked=[])  # newer, and missing every point
    with write_session(team_app) as session:
        session.get_one(User, user_id(team_app, "bob")).disabled_at = utcnow()
    assert missed(card_box(lena)) == {CARD.points[4].key: "missed in 1 of 1 rated answer"}


def test_pitfalls_asserted_most_count_only_readable_answers(
    team_app: FastAPI, lena: TestClient, hiding_bob: None
) -> None:
    answer(team_app, "alice", ticked=[0], asserts=[1])
    answer(team_app, "alice", ticked=[0], asserts=[1, 3])
    answer(team_app, "alice", ticked=[0], asserts=[])
    answer(team_app, "bob", ticked=[0], asserts=[0, 1])  # hidden: none of his suggestions count
    box = card_box(lena)
    shown = asserted(box)
    assert list(shown) == [CARD.pitfalls[1].key, CARD.pitfalls[3].key]
    assert shown[CARD.pitfalls[1].key] == "asserted in 2 of 3 answers, as the checker reads them"
    assert shown[CARD.pitfalls[3].key] == "asserted in 1 of 3 answers, as the checker reads them"
    assert MEASURED.pitfall_sentence() in text_of(soup_of(lena.get("/team")), ".team-answers-section")


def test_no_answer_text_and_no_name_is_shown(team_app: FastAPI, lena: TestClient) -> None:
    answer(team_app, "alice", ticked=[0], asserts=[0])
    section = soup_of(lena.get("/team")).select_one(".team-answers-section")
    assert isinstance(section, Tag)
    words = section.get_text(" ", strip=True)
    assert SECRET not in words and "alice" not in words


def test_the_read_is_bounded_to_the_newest_answers(
    team_app: FastAPI, lena: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(answers, "CAP", 2)
    now = utcnow()
    answer(team_app, "alice", ticked=[0, 1, 2, 3], created_at=now - timedelta(days=3), asserts=[2])
    answer(team_app, "alice", ticked=[0, 1, 2, 3], created_at=now - timedelta(days=2), asserts=[])
    answer(team_app, "alice", ticked=[], created_at=now - timedelta(days=9), asserts=[4])
    box = card_box(lena)
    assert missed(box) == {CARD.points[4].key: "missed in 2 of 2 rated answers"}
    assert asserted(box) == {CARD.pitfalls[2].key: "asserted in 1 of 2 answers, as the checker reads them"}


def test_an_empty_team_says_so(lena: TestClient) -> None:
    page: BeautifulSoup = soup_of(lena.get("/team"))
    assert "No rated answers" in text_of(page, ".team-answers-section")


def test_a_retired_cards_answers_are_left_out(team_app: FastAPI, lena: TestClient) -> None:
    with write_session(team_app) as session:
        session.add(make_attempt(user_id=user_id(team_app, "alice"), card_id="gone-card", points=[]))
    page = soup_of(lena.get("/team"))
    assert page.select('.team-answers [data-card-id="gone-card"]') == []


@pytest.mark.parametrize("cards", [0, 1, 600])
def test_any_size_of_deck_is_read(team_app: FastAPI, cards: int) -> None:
    """No card served (every file broken) and more cards than SQLite takes in one compound SELECT
    (500) both leave the section empty, not /team failing."""
    answer(team_app, "alice", ticked=[0], asserts=[1])
    deck = {f"card-{n}": dataclasses.replace(CARD, id=f"card-{n}") for n in range(cards)}
    with write_session(team_app) as session:
        found = answers.team_answers(session, snapshot=Snapshot(cards=deck), now=utcnow())
    assert found.cards == []
