"""A demo run is its owner's alone: to anyone else it reads as missing, like one that never
existed, and what they ask of it (cancel, run again) changes nothing."""

from collections.abc import Callable

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import select

from app.accounts.models import User
from app.demos import runs
from app.demos.models import DemoRun
from app.exceptions import NotFound
from app.presets import validate_params
from app.storage.base import utcnow

RUN_ID = "a1" * 16


def _user_id(app: FastAPI, name: str) -> int:
    with app.state.db.read_sessions() as session:
        return session.scalars(select(User.id).where(User.name == name)).one()


def _alice_s_queued_run(app: FastAPI) -> None:
    with app.state.db.write_sessions() as session:
        session.add(
            DemoRun(
                id=RUN_ID,
                user_id=_user_id(app, "alice"),
                preset="placement",
                params=validate_params("placement", params={}),
                status="queued",
                progress={},
                created_at=utcnow(),
            )
        )
        session.commit()


def test_own_run_finds_a_person_s_run_and_no_one_else_s(team_app: FastAPI) -> None:
    _alice_s_queued_run(team_app)
    alice, bob = _user_id(team_app, "alice"), _user_id(team_app, "bob")
    with team_app.state.db.read_sessions() as session:
        assert runs.own_run(session, user_id=alice, run_id=RUN_ID).id == RUN_ID
        with pytest.raises(NotFound, match="no demo run with id"):
            runs.own_run(session, user_id=bob, run_id=RUN_ID)
        with pytest.raises(NotFound):
            runs.own_run(session, user_id=alice, run_id=RUN_ID + "0")


def test_someone_else_s_run_is_404_and_their_cancel_stores_nothing(
    team_app: FastAPI, signed_in: Callable[[str], TestClient]
) -> None:
    _alice_s_queued_run(team_app)
    bob = signed_in("bob")
    assert bob.get(f"/api/demos/{RUN_ID}").status_code == 404
    assert bob.post(f"/api/demos/{RUN_ID}/cancel").status_code == 404
    assert bob.post(f"/api/demos/{RUN_ID}/rerun").status_code == 404
    assert bob.get(f"/demos/{RUN_ID}", headers={"accept": "text/html"}).status_code == 404
    alice = signed_in("alice")
    doc = alice.get(f"/api/demos/{RUN_ID}").json()
    assert doc["status"] == "queued" and doc["cancel_requested"] is False
    # Her own cancel is stored before the answer: a fresh read sees it.
    assert alice.post(f"/api/demos/{RUN_ID}/cancel").json()["status"] == "cancelled"
    with team_app.state.db.read_sessions() as session:
        run = session.get(DemoRun, RUN_ID)
        assert run is not None and run.status == "cancelled" and run.cancel_requested
    assert alice.post(f"/api/demos/{RUN_ID}/cancel").status_code == 409
    with team_app.state.db.read_sessions() as session:
        assert [r.id for r in session.scalars(select(DemoRun))] == [RUN_ID]
