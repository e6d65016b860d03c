"""POST /api/author/check is limited per person (AUTHOR_CHECKS_PER_MINUTE): past the limit it
answers 429 with Retry-After and renders nothing, on every replica alike (the count is in the
database), while other people keep checking."""

from collections.abc import Iterator

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import func, select

from app.accounts.models import AuditEvent
from app.authoring import service
from app.factory import create_app
from tests.factories import card_text
from tests.helpers.accounts import new_person

LIMIT = 3
PASSWORD = "author pass phrase 9"


@pytest.fixture
def limited_app(team_app: FastAPI) -> FastAPI:
    team_app.state.settings = team_app.state.settings.model_copy(update={"author_checks_per_minute": LIMIT})
    return team_app


@pytest.fixture
def ann(limited_app: FastAPI) -> Iterator[TestClient]:
    with new_person(limited_app, "ann", "author", PASSWORD) as client:
        yield client


def _check(client: TestClient) -> int:
    return client.post("/api/author/check", json={"text": card_text()}).status_code


def _counted(app: FastAPI) -> int:
    with app.state.db.read_sessions() as session:
        return session.scalar(select(func.count()).where(AuditEvent.kind == service.CHECK_KIND)) or 0


def test_past_the_limit_a_check_is_refused_with_when_to_try_again(
    limited_app: FastAPI, ann: TestClient
) -> None:
    assert [_check(ann) for _ in range(LIMIT)] == [200] * LIMIT
    refused = ann.post("/api/author/check", json={"text": card_text()})
    assert refused.status_code == 429
    assert 1 <= int(refused.headers["Retry-After"]) <= 60
    assert f"at most {LIMIT}" in refused.json()["detail"]
    assert "card" not in refused.json()
    # A refusal is not counted: waiting out the minute is enough.
    assert _counted(limited_app) == LIMIT


def test_the_limit_is_each_person_s_own(limited_app: FastAPI, ann: TestClient) -> None:
    for _ in range(LIMIT + 1):
        _check(ann)
    with new_person(limited_app, "cid", "author", PASSWORD) as cid:
        assert _check(cid) == 200


def test_another_replica_counts_the_same_checks(limited_app: FastAPI, ann: TestClient) -> None:
    for _ in range(LIMIT):
        assert _check(ann) == 200
    replica = create_app(limited_app.state.settings)
    try:
        with TestClient(replica, cookies=ann.cookies, headers=ann.headers) as other:
            assert _check(other) == 429
    finally:
        replica.state.db.dispose()
