"""/team's hardest cards and missed pitfalls read counts the database keeps as practice is
written. They follow every way a schedule or a tally changes (answers, an undo, a person disabled
and enabled again, an import, the solo history adopted, the aggregates rebuilt), always equal to
the counts worked out again from every schedule and tally, and the page shows them."""

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from pathlib import Path
from typing import Any

from bs4 import BeautifulSoup
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import select

from app.accounts import service as accounts
from app.accounts.models import LOCAL_USER_ID
from app.practice import attempts, scheduling, totals
from app.practice.quiz import quiz_items
from app.practice.schemas import AttemptIn
from app.storage.base import utcnow
from app.team import adopt, counts
from app.team.models import TeamCardCount, TeamStatementCount
from tests.factories import OWNER_CARD
from tests.helpers.accounts import review_as
from tests.helpers.html import soup_of
from tests.helpers.practice import post_attempt, quiz_ids

CACHE = "tf-data-cache-shuffle-order"
Counts = dict[str, dict[tuple[str, ...], tuple[int, ...]]]


def _read(session: Any) -> Counts:
    cards = session.execute(select(TeamCardCount)).scalars()
    statements = session.execute(select(TeamStatementCount)).scalars()
    # A row all of whose counts went back to 0 is the same as no row.
    return {
        "cards": {
            (c.card_id,): (c.reviews, c.again, c.people)
            for c in cards
            if (c.reviews, c.again, c.people) != (0, 0, 0)
        },
        "statements": {
            (s.card_id, s.item_id): (s.missed, s.seen, s.people)
            for s in statements
            if (s.missed, s.seen, s.people) != (0, 0, 0)
        },
    }


def kept_and_recounted(app: FastAPI) -> tuple[Counts, Counts]:
    """The counts as kept, and as worked out again from scratch (then left as they were)."""
    with app.state.db.write_sessions() as session:
        kept = _read(session)
        counts.recount(session)
        recounted = _read(session)
        session.rollback()
    return kept, recounted


def assert_in_step(app: FastAPI) -> Counts:
    kept, recounted = kept_and_recounted(app)
    assert kept == recounted
    return kept


def hardest(lead: TestClient) -> dict[str, tuple[str, str]]:
    """Each hardest card's reviews and people, as /team shows them."""
    page: BeautifulSoup = soup_of(lead.get("/team"))
    return {
        str(row["data-card-id"]): (
            row.select_one('[data-label="Reviews"]').get_text(strip=True),  # type: ignore[union-attr]
            row.select_one('[data-label="People"]').get_text(strip=True),  # type: ignore[union-attr]
        )
        for row in page.select("tr.hard-card")
    }


def missed_by(lead: TestClient) -> dict[str, str]:
    page = soup_of(lead.get("/team"))
    return {
        str(li["data-item"]): li.select_one(".count").get_text(" ", strip=True)
        for li in page.select("ol.missed li")
    }  # type: ignore[union-attr]


def test_answers_an_undo_and_a_person_disabled_and_back_move_the_teams_counts(
    team_app: FastAPI, signed_in: Callable[[str], TestClient], lena: TestClient
) -> None:
    alice, bob, root = signed_in("alice"), signed_in("bob"), signed_in("root")
    post_attempt(alice, CACHE, rating="again")
    post_attempt(alice, CACHE, tier="senior", rating="again")  # a second depth: still one person
    forgotten = post_attempt(bob, CACHE, rating="again")
    post_attempt(bob, OWNER_CARD, rating="good")
    pitfalls, _ = quiz_ids(alice)
    for person in (alice, bob):
        quiz = person.post(
            f"/api/cards/{OWNER_CARD}/attempts",
            json={"tier": "junior", "kind": "quiz", "choices": pitfalls[1:], "seconds": 20},
        )
        assert quiz.status_code == 201, quiz.text
    assert_in_step(team_app)
    assert hardest(lena) == {CACHE: ("3", "2")}
    assert missed_by(lena)[pitfalls[0]] == "missed 2 times by 2 people"

    undone = bob.delete(f"/api/cards/{CACHE}/reviews/latest", params={"attempt_id": forgotten["id"]})
    assert undone.status_code == 200, undone.text
    assert_in_step(team_app)
    assert hardest(lena) == {CACHE: ("2", "1")}  # bob's schedule of it went with his only review

    assert root.post("/admin/users/alice", data={"disabled": "true"}).status_code == 200
    assert_in_step(team_app)
    assert hardest(lena) == {}
    assert missed_by(lena)[pitfalls[0]] == "missed 1 time by 1 person"

    assert root.post("/admin/users/alice", data={"disabled": "false"}).status_code == 200
    assert_in_step(team_app)
    assert hardest(lena) == {CACHE: ("2", "1")}
    assert missed_by(lena)[pitfalls[0]] == "missed 2 times by 2 people"


def test_an_import_and_a_rebuild_of_the_aggregates_keep_the_counts_in_step(
    team_app: FastAPI, signed_in: Callable[[str], TestClient]
) -> None:
    alice, bob = signed_in("alice"), signed_in("bob")
    post_attempt(alice, CACHE, rating="again")
    post_attempt(alice, OWNER_CARD, rating="hard")
    exported = alice.get("/api/export.json").json()
    imported = bob.post("/api/import", json=exported)
    assert imported.status_code == 200, imported.text
    kept = assert_in_step(team_app)
    assert kept["cards"][(CACHE,)] == (2, 2, 2)

    totals.rebuild(team_app.state.db.write_sessions, cards=team_app.state.catalogue.snapshot().cards)
    assert assert_in_step(team_app) == kept


def test_the_solo_history_counts_once_an_account_adopts_it(
    team_app: FastAPI, signed_in: Callable[[str], TestClient], lena: TestClient
) -> None:
    with team_app.state.db.write_sessions() as session:
        for tier in ("middle", "senior"):
            scheduling.review(
                session,
                user_id=LOCAL_USER_ID,
                card_id=CACHE,
                tier=tier,
                rating=scheduling.RATING_BY_NAME["again"],
                duration_ms=1000,
                at=utcnow() - timedelta(days=1),
            )
    assert hardest(lena) == {}  # the solo history is nobody's on the team
    assert_in_step(team_app)

    review_as(team_app, "alice", CACHE, "middle", "good", utcnow())
    with team_app.state.db.write_sessions() as session:
        adopt.adopt_local(session, "bob")
    assert_in_step(team_app)
    assert hardest(lena) == {CACHE: ("3", "2")}


def test_a_retired_cards_statements_are_passed_over_and_the_card_is_marked_retired(
    team_app: FastAPI, signed_in: Callable[[str], TestClient], lena: TestClient, own_content: Path
) -> None:
    alice = signed_in("alice")
    for card_id in (CACHE, OWNER_CARD):
        post_attempt(alice, card_id, kind="quiz", text=None, choices=[], points=[], rating=None)
        post_attempt(alice, card_id, rating="again")
    cache_pitfalls, _ = quiz_ids(alice, CACHE)
    assert set(cache_pitfalls) & set(missed_by(lena))

    (own_content / f"{CACHE}.md").unlink()
    missed = missed_by(lena)
    assert missed and not set(cache_pitfalls) & set(missed)
    retired = soup_of(lena.get("/team")).select_one(f'tr.hard-card[data-card-id="{CACHE}"]')
    assert retired is not None and retired.select_one(".retired-badge") is not None


def test_many_people_quizzed_on_one_card_at_once_are_all_stored_and_counted(team_app: FastAPI) -> None:
    """Every quiz on a card updates the same count rows (its statements', then its card's): people
    taking it for the first time and again, all at once, must never wait on each other in a
    circle, which PostgreSQL would end by refusing one of them."""
    people, rounds = 8, 4
    with team_app.state.db.write_sessions() as session:
        ids = [accounts.create_user(session, name=f"taker{n}").id for n in range(people)]
        session.commit()
    card = team_app.state.catalogue.snapshot().cards[OWNER_CARD]
    quiz = AttemptIn(tier="middle", kind="quiz", choices=[], seconds=12.0)
    start = threading.Barrier(people)

    def take(user_id: int) -> None:
        start.wait()
        for _ in range(rounds):
            with team_app.state.db.write_sessions() as session:
                attempts.record(session, card=card, user_id=user_id, data=quiz, now=utcnow())

    with ThreadPoolExecutor(people) as pool:
        list(pool.map(take, ids))  # re-raises what any of them raised
    kept = assert_in_step(team_app)
    pitfalls = [item.id for item in quiz_items(card) if item.costly]
    assert {kept["statements"][(OWNER_CARD, p)] for p in pitfalls} == {
        (people * rounds, people * rounds, people)
    }
