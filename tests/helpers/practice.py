"""Answers, reviews and quizzes, for the scheduling, practice, progress, export and team tests."""

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import httpx
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.practice import scheduling, totals
from app.practice.models import Attempt, ReviewLog, ReviewState
from tests.factories import OWNER_CARD
from tests.helpers.html import HTMX, soup_of
from tests.helpers.payloads import attempt_payload

T0 = datetime(2026, 3, 2, 9, 30, tzinfo=UTC)  # a fixed Monday morning


@contextmanager
def write_session(app: FastAPI) -> Iterator[Session]:
    with app.state.db.write_sessions() as session:
        yield session
        session.commit()


def review(
    app: FastAPI,
    rating: str,
    at: datetime,
    card_id: str = OWNER_CARD,
    tier: str = "middle",
    duration_ms: int | None = 1000,
) -> ReviewState:
    with write_session(app) as session:
        return scheduling.review(
            session,
            user_id=1,
            card_id=card_id,
            tier=tier,
            rating=scheduling.RATING_BY_NAME[rating],
            duration_ms=duration_ms,
            at=at,
        )


def state(app: FastAPI, card_id: str = OWNER_CARD, tier: str = "middle") -> ReviewState | None:
    with app.state.db.read_sessions() as session:
        return scheduling.get_state(session, user_id=1, card_id=card_id, tier=tier)


def logs(app: FastAPI, card_id: str | None = None) -> list[ReviewLog]:
    with app.state.db.read_sessions() as session:
        query = select(ReviewLog).order_by(ReviewLog.review_datetime, ReviewLog.id)
        if card_id is not None:
            query = query.where(ReviewLog.card_id == card_id)
        return list(session.scalars(query))


def counts(app: FastAPI) -> dict[str, int]:
    with app.state.db.read_sessions() as session:
        return {
            model.__tablename__: int(session.scalar(select(func.count()).select_from(model)) or 0)
            for model in (Attempt, ReviewLog, ReviewState)
        }


def add(app: FastAPI, *rows: Any) -> None:
    """Rows stored directly; attempts among them counted as the app counts what it writes (per
    day, per quiz statement), with the cards the app serves."""
    with write_session(app) as session:
        session.add_all(rows)
        session.flush()  # the attempts' created_at
        answers = [row for row in rows if isinstance(row, Attempt)]
        cards = app.state.catalogue.snapshot().cards
        for user_id in {answer.user_id for answer in answers}:
            mine = [answer for answer in answers if answer.user_id == user_id]
            totals.count_answers(session, user_id=user_id, answers=mine, cards=cards)


def quiz_ids(client: TestClient, card_id: str = OWNER_CARD) -> tuple[list[str], list[str]]:
    """The ids of the card's pitfalls and of its true statements, in the card's order (card API)."""
    sections = client.get(f"/api/cards/{card_id}", params={"tier": "principal"}).json()["sections"]
    return [p["id"] for p in sections["pitfalls"]], [t["id"] for t in sections["true_statements"]]


def attempts_of(card_id: str = OWNER_CARD) -> str:
    """Where a card's answers are posted."""
    return f"/api/cards/{card_id}/attempts"


def post_attempt(client: httpx.Client, card_id: str = OWNER_CARD, **overrides: Any) -> dict[str, Any]:
    """An answer to `card_id` (attempt_payload with `overrides`), stored: what the API returns."""
    response = client.post(attempts_of(card_id), json=attempt_payload(**overrides))
    assert response.status_code == 201, response.text
    result: dict[str, Any] = response.json()
    return result


@dataclass(frozen=True)
class DealtQuiz:
    """The quiz form as a person gets it: its deal and each box's value, in the order shown, with
    the stable id of the statement it labels (matched by its words, through the card API)."""

    deal: str
    boxes: list[tuple[str, str]]

    @property
    def values(self) -> list[str]:
        return [value for value, _ in self.boxes]

    def values_of(self, stable_ids: list[str]) -> list[str]:
        by_id = {stable: value for value, stable in self.boxes}
        return [by_id[stable] for stable in stable_ids]


def dealt_quiz(client: TestClient, card_id: str = OWNER_CARD) -> DealtQuiz:
    form = soup_of(client.get(f"/cards/{card_id}/quiz", headers=HTMX)).select_one("#quiz form")
    assert form is not None
    sections = client.get(f"/api/cards/{card_id}", params={"tier": "principal"}).json()["sections"]
    by_words = {
        soup_of(entry["statement"]["html"]).get_text(" ", strip=True): entry["id"]
        for entry in sections["pitfalls"] + sections["true_statements"]
    }
    boxes = [
        (str(box["value"]), by_words[label.get_text(" ", strip=True)])
        for label in form.select("label")
        if (box := label.select_one("input[name=choices]")) is not None
    ]
    deal = form.select_one("input[name=deal]")
    return DealtQuiz(str(deal["value"]) if deal else "", boxes)
