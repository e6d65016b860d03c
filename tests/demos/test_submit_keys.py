"""A demo submit may carry a key: the `Idempotency-Key` header in the API, a hidden field that the
card page's browser fills once per page view. The same key from the same person within a day names
one run, however often and however concurrently it arrives (a double click, a retried request);
different people never share one. No worker runs here: the runs stay queued, where they are
counted."""

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
from bs4 import BeautifulSoup
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import select, update

from app.accounts import service as accounts
from app.demos.models import DemoRun
from app.factory import create_app
from app.jobs.queue import JobQueue
from app.storage.base import utcnow
from tests.factories import OWNER_CARD
from tests.helpers.accounts import accounts_settings
from tests.helpers.payloads import demo_run_payload
from tests.servers import free_port

SMALL = {"steps": 6, "input_ms": 3, "compute_ms": 3, "batch_size": 2}
SignIn = Callable[[str], TestClient]


def submit(client: TestClient, key: str | None, **body: Any) -> httpx.Response:
    headers = {"Idempotency-Key": key} if key is not None else {}
    return client.post("/api/demos", json=demo_run_payload(**body), headers=headers)


def run_ids(client: TestClient) -> list[str]:
    return [run["run_id"] for run in client.get("/api/demos").json()["runs"]]


def test_a_repeated_key_answers_with_the_first_run(signed_in: SignIn) -> None:
    alice = signed_in("alice")
    first = submit(alice, "key-1")
    again = submit(alice, "key-1")
    assert first.status_code == 202 and again.status_code == 200
    assert again.json() == first.json()
    assert run_ids(alice) == [first.json()["run_id"]]

    assert submit(alice, "key-2").status_code == 202
    assert submit(alice, None).status_code == 202  # no key: every submit is a run of its own
    assert len(run_ids(alice)) == 3


def test_a_repeat_is_answered_even_when_the_queue_is_full(signed_in: SignIn) -> None:
    alice = signed_in("alice")
    first = [submit(alice, key).json()["run_id"] for key in ("a", "b", "c")]
    assert submit(alice, "d").status_code == 429
    again = submit(alice, "a")
    assert again.status_code == 200 and again.json()["run_id"] == first[0]
    assert sorted(run_ids(alice)) == sorted(first)


def test_two_people_with_the_same_key_get_a_run_each(signed_in: SignIn) -> None:
    alice, bob = signed_in("alice"), signed_in("bob")
    hers, his = submit(alice, "shared-key"), submit(bob, "shared-key")
    assert hers.status_code == his.status_code == 202
    assert run_ids(alice) == [hers.json()["run_id"]] and run_ids(bob) == [his.json()["run_id"]]


def test_a_key_sent_again_with_another_demo_is_refused(signed_in: SignIn) -> None:
    alice = signed_in("alice")
    first = submit(alice, "key-1")
    changed = submit(alice, "key-1", params={**SMALL, "steps": 7})
    assert changed.status_code == 422
    assert changed.json()["detail"][0]["loc"] == ["header", "Idempotency-Key"]
    assert run_ids(alice) == [first.json()["run_id"]]


def test_a_key_outside_its_limits_is_refused(signed_in: SignIn) -> None:
    alice = signed_in("alice")
    for key in ("x" * 65, "two words"):
        refused = submit(alice, key)
        assert refused.status_code == 422
        assert refused.json()["detail"][0]["loc"] == ["header", "Idempotency-Key"]
    assert run_ids(alice) == []


def test_a_key_is_free_again_after_a_day(signed_in: SignIn, team_app: FastAPI) -> None:
    alice = signed_in("alice")
    first = submit(alice, "daily").json()["run_id"]
    with team_app.state.db.write_sessions() as session:
        session.execute(
            update(DemoRun).where(DemoRun.id == first).values(created_at=utcnow() - timedelta(hours=25))
        )
        session.commit()
    later = submit(alice, "daily")
    assert later.status_code == 202 and later.json()["run_id"] != first
    assert submit(alice, "daily").json()["run_id"] == later.json()["run_id"]


def test_a_key_whose_run_never_reached_the_queue_can_be_sent_again(
    signed_in: SignIn, team_app: FastAPI, tmp_path: Path
) -> None:
    alice = signed_in("alice")
    team_app.state.job_queue = JobQueue(f"redis://127.0.0.1:{free_port()}/0")  # nothing listens
    assert submit(alice, "retry-me").status_code == 503
    team_app.state.job_queue = JobQueue(f"sqlite:///{tmp_path / 'queue.db'}")
    retried = submit(alice, "retry-me")
    assert retried.status_code == 202
    statuses = {run["run_id"]: run["status"] for run in alice.get("/api/demos").json()["runs"]}
    assert sorted(statuses.values()) == ["failed", "queued"]
    assert statuses[retried.json()["run_id"]] == "queued"


def test_concurrent_submits_with_one_key_on_two_replicas_make_one_run(tmp_path: Path) -> None:
    """Two apps on one database, as two replicas behind a load balancer: a double click whose
    clicks reach different replicas at the same moment still starts one run."""
    settings = accounts_settings(tmp_path)
    replicas = [create_app(settings), create_app(settings)]
    db = replicas[0].state.db
    with db.write_sessions() as session:
        user = accounts.create_user(session, name="carol", role="member", password="a long enough password")
        token = accounts.create_token(session, user_id=user.id, name="double clicker")
        session.commit()
    clients = [TestClient(app, headers={"Authorization": f"Bearer {token}"}) for app in replicas]
    try:
        for round_number in range(5):
            key = f"click-{round_number}"
            start = threading.Barrier(len(clients))

            def click(client: TestClient, key: str = key, start: threading.Barrier = start) -> httpx.Response:
                start.wait()  # both requests leave together
                return submit(client, key)

            with ThreadPoolExecutor(len(clients)) as pool:
                answers = list(pool.map(click, clients))
            assert sorted(a.status_code for a in answers) == [200, 202], [a.text for a in answers]
            assert answers[0].json()["run_id"] == answers[1].json()["run_id"]
            with db.read_sessions() as session:
                keyed = session.scalars(select(DemoRun.id).where(DemoRun.user_id == user.id)).all()
            assert len(keyed) == round_number + 1
            # Room in the queue for the next round (three may wait per person).
            assert clients[0].post(f"/api/demos/{answers[0].json()['run_id']}/cancel").status_code == 200
    finally:
        for client in clients:
            client.close()
        for app in replicas:
            app.state.db.dispose()


def test_the_shared_card_page_leaves_the_key_to_each_browser(signed_in: SignIn) -> None:
    page = signed_in("alice").get(f"/cards/{OWNER_CARD}")
    forms = BeautifulSoup(page.text, "html.parser").select("form.demo-form")
    assert forms
    for form in forms:
        # The page is cached and served to everyone: a key written into it would be everyone's.
        key = form.select_one('input[name="idempotency_key"]')
        assert key is not None and key.get("value", "") == ""


def test_a_form_sent_twice_with_its_key_starts_one_run(signed_in: SignIn) -> None:
    alice = signed_in("alice")
    form = {"preset": "placement", "card_id": OWNER_CARD, "idempotency_key": "page-view-1"}
    form |= {name: str(value) for name, value in SMALL.items()}
    first = alice.post("/demos", data=form, headers={"HX-Request": "true"})
    second = alice.post("/demos", data=form, headers={"HX-Request": "true"})
    assert first.status_code == second.status_code == 200
    assert first.headers["hx-redirect"] == second.headers["hx-redirect"]
    plain = alice.post("/demos", data=form)  # the same form without JavaScript's help
    assert plain.status_code == 303 and plain.headers["location"] == first.headers["hx-redirect"]
    assert [f"/demos/{run_id}" for run_id in run_ids(alice)] == [first.headers["hx-redirect"]]

    another = alice.post(
        "/demos", data=form | {"idempotency_key": "page-view-2"}, headers={"HX-Request": "true"}
    )
    assert another.headers["hx-redirect"] != first.headers["hx-redirect"]
    assert len(run_ids(alice)) == 2


def test_a_form_whose_key_cannot_name_this_run_says_to_reload(signed_in: SignIn) -> None:
    alice = signed_in("alice")
    form = {"preset": "placement", "card_id": OWNER_CARD, "idempotency_key": "page-view-1"}
    form |= {name: str(value) for name, value in SMALL.items()}
    assert alice.post("/demos", data=form, headers={"HX-Request": "true"}).status_code == 200
    for changed in ({"steps": "7"}, {"idempotency_key": "x" * 65}):
        refused = alice.post("/demos", data=form | changed, headers={"HX-Request": "true"})
        assert refused.status_code == 422
        errors = BeautifulSoup(refused.text, "html.parser").select_one(".errors")
        assert errors is not None and "reload the page" in errors.text
    assert len(run_ids(alice)) == 1


def test_the_api_schema_documents_the_key(signed_in: SignIn) -> None:
    operation = signed_in("alice").get("/openapi.json").json()["paths"]["/api/demos"]["post"]
    header = next(p for p in operation["parameters"] if p["name"] == "Idempotency-Key")
    assert header["in"] == "header" and not header.get("required", False)
    assert "200" in operation["responses"] and "202" in operation["responses"]


def test_run_it_again_sent_twice_with_its_key_starts_one_run(signed_in: SignIn) -> None:
    """The run page's "Run it again" carries a key of its own, like the card page's forms."""
    alice = signed_in("alice")
    first = submit(alice, None, card_id=OWNER_CARD).json()["run_id"]
    with alice.app.state.db.write_sessions() as session:  # type: ignore[attr-defined]
        session.execute(
            update(DemoRun).where(DemoRun.id == first).values(status="cancelled", finished_at=utcnow())
        )
        session.commit()
    page = BeautifulSoup(alice.get(f"/demos/{first}").text, "html.parser")
    form = page.select_one(f'form[action="/demos/{first}/rerun"]')
    assert form is not None and form.select_one("input[name=idempotency_key]") is not None
    data = {"idempotency_key": "run-page-view-1"}
    again = [alice.post(f"/demos/{first}/rerun", data=data, headers={"HX-Request": "true"}) for _ in range(2)]
    assert [r.status_code for r in again] == [200, 200]
    assert again[0].headers["hx-redirect"] == again[1].headers["hx-redirect"]
    assert len(run_ids(alice)) == 2
