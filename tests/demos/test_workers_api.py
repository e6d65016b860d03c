"""GET /api/workers lists every live worker to everyone, but the run a worker is on is named only
to the person whose run it is: a run id is the key to someone's demo."""

from collections.abc import Callable

from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import select

from app.accounts.models import User
from app.demos import claims
from app.demos.models import DemoRun
from app.presets import validate_params
from app.storage.base import utcnow

RUN_ID = "f" * 32


def _alice_s_run_on_a_worker(app: FastAPI) -> None:
    with app.state.db.write_sessions() as session:
        alice = session.scalars(select(User.id).where(User.name == "alice")).one()
        now = utcnow()
        session.add(
            DemoRun(
                id=RUN_ID,
                user_id=alice,
                preset="placement",
                params=validate_params("placement", params={}),
                status="running",
                started_at=now,
                heartbeat_at=now,
                worker="host:7",
            )
        )
        session.commit()
        claims.beat(
            session,
            name="host:7",
            device="cpu",
            compute="simulated",
            tensorflow_version="2.21.0",
            current_run_id=RUN_ID,
            started_at=now,
            capabilities=["cpu"],
            gpu_setting="auto",
        )


def test_a_worker_s_run_is_named_only_to_its_owner(
    team_app: FastAPI, signed_in: Callable[[str], TestClient]
) -> None:
    _alice_s_run_on_a_worker(team_app)
    seen = {name: signed_in(name).get("/api/workers").json()["workers"] for name in ("alice", "bob", "root")}
    assert [w["name"] for w in seen["bob"]] == ["host:7"] == [w["name"] for w in seen["alice"]]
    assert seen["alice"][0]["current_run_id"] == RUN_ID
    assert seen["bob"][0]["current_run_id"] is None
    assert seen["root"][0]["current_run_id"] is None  # an admin is no owner either
    assert RUN_ID not in str(seen["bob"]) and seen["bob"][0]["device"] == "cpu"
