"""The rules that need no worker: bounds, the per-person queue limit, cancel before start, what
the page says while no worker runs, stale runs, claims, and the card page's forms."""

import socket
import subprocess
import sys
from datetime import timedelta

import pytest
from bs4 import BeautifulSoup
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import update

from app.accounts.models import LOCAL_USER_ID
from app.demos import claims
from app.demos.models import DemoRun, WorkerBeat
from app.presets import PRESETS
from app.storage.base import utcnow
from app.worker.consumer import pid_alive
from tests.factories import DECK
from tests.helpers.demos import HEARTBEAT_TIMEOUT_S, SMALL, beat_row, submit
from tests.helpers.payloads import demo_run_payload

CARD = "tf-data-prefetch-last"
CPU = ("cpu",)  # the lanes a worker without a GPU reads


@pytest.mark.parametrize(
    ("body", "param", "text"),
    [
        ({"preset": "placement", "params": {"input_ms": 9999}}, "input_ms", "between 0 and 500"),
        ({"preset": "placement", "params": {"steps": 2}}, "steps", "between 5 and 500"),
        ({"preset": "deficit", "params": {"workers": 17}}, "workers", "between 1 and 16"),
        ({"preset": "placement", "params": {"batch_size": "four"}}, "batch_size", "must be an integer"),
        ({"preset": "placement", "params": {"batch_size": True}}, "batch_size", "must be an integer"),
        ({"preset": "placement", "params": {"workers": 2}}, "workers", "unknown parameter"),
        ({"preset": "placement", "params": {"steps": 500, "input_ms": 500}}, "steps", "limit is 120 s"),
        ({"preset": "warp-drive"}, "preset", "unknown preset"),
        ({"preset": "placement", "card_id": "no-such-card"}, "card_id", "no card"),
    ],
)
def test_out_of_bounds_is_422_naming_the_parameter_and_its_range(
    idle_client: TestClient, body: dict[str, object], param: str, text: str
) -> None:
    response = idle_client.post("/api/demos", json=body)
    assert response.status_code == 422
    detail = response.json()["detail"][0]
    assert detail["param"] == param
    assert text in detail["msg"]
    assert detail["loc"][-1] == param
    if "between" in text:
        spec = {p.name: p for p in PRESETS[str(body["preset"])].params}[param]
        assert (detail["min"], detail["max"]) == (spec.min, spec.max)
    assert idle_client.get("/api/demos").json()["runs"] == []


def test_three_queued_then_429_and_cancelling_one_makes_room(idle_client: TestClient) -> None:
    ids = [submit(idle_client, params=SMALL) for _ in range(3)]
    refused = idle_client.post("/api/demos", json=demo_run_payload())
    assert refused.status_code == 429
    assert "3 demos waiting" in refused.json()["detail"]
    assert refused.headers["retry-after"]
    assert idle_client.post(f"/api/demos/{ids[0]}/rerun").status_code == 429

    cancelled = idle_client.post(f"/api/demos/{ids[0]}/cancel")
    assert cancelled.status_code == 200
    assert cancelled.json()["status"] == "cancelled"
    assert idle_client.get(f"/api/demos/{ids[0]}").json()["error"] == "Cancelled before it started."
    assert idle_client.post(f"/api/demos/{ids[0]}/cancel").status_code == 409
    assert idle_client.post("/api/demos", json=demo_run_payload()).status_code == 202


def test_the_page_says_no_worker_is_running_and_how_to_start_one(idle_client: TestClient) -> None:
    run_id = submit(idle_client, params=SMALL, card_id=CARD)
    assert idle_client.get("/api/workers").json()["workers"] == []

    page = idle_client.get(f"/demos/{run_id}")
    soup = BeautifulSoup(page.text, "html.parser")
    warning = soup.select_one(".no-worker")
    assert warning is not None
    assert "No worker is running" in warning.text
    assert "tiercards worker" in warning.text and "--no-worker" in warning.text
    assert "the job waits in the queue" in warning.text
    assert "Position 1 in the queue" in soup.select_one("#demo-status").text
    assert soup.select_one("#demo-status")["hx-trigger"] == "every 1s"
    assert soup.select_one("button.cancel") is not None


def test_a_fresh_worker_beat_makes_the_warning_go(idle_client: TestClient, idle_app: FastAPI) -> None:
    run_id = submit(idle_client, params=SMALL)
    db = idle_app.state.db
    with db.write_sessions() as session:
        claims.beat(
            session,
            name="elsewhere:1",
            device="CPU",
            compute="simulated",
            tensorflow_version="2.x",
            current_run_id=None,
            started_at=utcnow(),
            capabilities=["cpu"],
            gpu_setting="auto",
        )
    try:
        page = idle_client.get(f"/demos/{run_id}")
        assert "No worker is running" not in page.text
        assert idle_client.get("/api/workers").json()["workers"][0]["name"] == "elsewhere:1"
        with db.write_sessions() as session:
            stale = utcnow() - timedelta(seconds=HEARTBEAT_TIMEOUT_S + 1)
            session.execute(update(WorkerBeat).values(last_seen=stale))
            session.commit()
        assert "No worker is running" in idle_client.get(f"/demos/{run_id}").text
    finally:
        with db.write_sessions() as session:
            claims.forget_worker(session, "elsewhere:1")


def test_a_running_run_without_heartbeat_reads_as_interrupted(
    idle_client: TestClient, idle_app: FastAPI
) -> None:
    run_id = submit(idle_client, params=SMALL)
    db = idle_app.state.db
    with db.write_sessions() as session:
        claimed = claims.claim(
            session, run_id=run_id, worker="gone-host:4242", timeout_seconds=HEARTBEAT_TIMEOUT_S, lanes=CPU
        )
    assert isinstance(claimed, claims.Claimed)
    assert idle_client.get(f"/api/demos/{run_id}").json()["status"] == "running"
    with db.write_sessions() as session:
        old = utcnow() - timedelta(seconds=HEARTBEAT_TIMEOUT_S + 1)
        session.execute(update(DemoRun).where(DemoRun.id == run_id).values(heartbeat_at=old))
        session.commit()
    doc = idle_client.get(f"/api/demos/{run_id}").json()
    assert doc["status"] == "interrupted"
    assert "heartbeat" in doc["error"]


def test_a_new_worker_interrupts_runs_left_by_a_dead_worker_on_its_host_at_once(
    idle_client: TestClient, idle_app: FastAPI
) -> None:
    run_id = submit(idle_client, params=SMALL)
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    host = socket.gethostname()
    db = idle_app.state.db
    with db.write_sessions() as session:
        claims.claim(
            session,
            run_id=run_id,
            worker=f"{host}:{gone.pid}",
            timeout_seconds=HEARTBEAT_TIMEOUT_S,
            lanes=CPU,
        )
    with db.write_sessions() as session:
        assert claims.interrupt_orphans(session, host=host, pid_alive=pid_alive) == 1
    doc = idle_client.get(f"/api/demos/{run_id}").json()
    assert doc["status"] == "interrupted"


def test_claims_are_atomic_and_one_running_per_person(idle_client: TestClient, idle_app: FastAPI) -> None:
    first, second = submit(idle_client, params=SMALL), submit(idle_client, params=SMALL)
    db = idle_app.state.db
    with db.write_sessions() as session:
        assert isinstance(
            claims.claim(session, run_id=first, worker="a:1", timeout_seconds=HEARTBEAT_TIMEOUT_S, lanes=CPU),
            claims.Claimed,
        )
    with db.write_sessions() as session:
        assert (
            claims.claim(session, run_id=first, worker="b:2", timeout_seconds=HEARTBEAT_TIMEOUT_S, lanes=CPU)
            == "gone"
        )  # taken already
    with db.write_sessions() as session:
        assert (
            claims.claim(session, run_id=second, worker="b:2", timeout_seconds=HEARTBEAT_TIMEOUT_S, lanes=CPU)
            == "busy"
        )  # one running each
    with db.write_sessions() as session:
        claims.finish(session, run_id=first, worker="a:1", status="done", result={"variants": []})
    with db.write_sessions() as session:
        assert isinstance(
            claims.claim(
                session, run_id=second, worker="b:2", timeout_seconds=HEARTBEAT_TIMEOUT_S, lanes=CPU
            ),
            claims.Claimed,
        )
    with db.write_sessions() as session:
        claims.finish(
            session, run_id=second, worker="someone-else:3", status="done"
        )  # not its worker: ignored
    with db.read_sessions() as session:
        run = session.get(DemoRun, second)
        assert run is not None and run.status == "running" and run.user_id == LOCAL_USER_ID


def test_unknown_runs_are_404(idle_client: TestClient) -> None:
    assert idle_client.get("/api/demos/0123456789abcdef0123456789abcdef").status_code == 404
    assert idle_client.post("/api/demos/nope/cancel").status_code == 404
    assert idle_client.get("/demos/nope", headers={"accept": "text/html"}).status_code == 404


def test_the_card_page_offers_each_listed_preset_with_bounds_and_defaults(idle_client: TestClient) -> None:
    page = idle_client.get(f"/cards/{CARD}")
    soup = BeautifulSoup(page.text, "html.parser")
    section = soup.select_one("#demos")
    assert section is not None and "Run it live" in section.text
    presets = [d["data-preset"] for d in section.select("details.demo-preset")]
    assert presets == ["placement", "deficit", "jitter", "synthetic", "memory", "to-device"]
    for name in presets:
        form = section.select_one(f"#demo-form-{name}")
        assert form["action"] == "/demos" and form.select_one('input[name="csrf_token"]')["value"]
        assert form.select_one('input[name="card_id"]')["value"] == CARD
        for spec in PRESETS[name].params:
            field = form.select_one(f'input[name="{spec.name}"]')
            assert (field["min"], field["max"], field["value"]) == (
                str(spec.min),
                str(spec.max),
                str(spec.default),
            )
    # The per-person part loads by htmx: the cached page holds no one's runs.
    history = soup.select_one("#demo-history")
    assert history["hx-get"] == f"/cards/{CARD}/demo-runs" and history["hx-trigger"] == "load"
    assert soup.select(".demo-history-row") == []

    without = next(card for card in DECK.values() if not card.demos)
    assert 'id="demos"' not in idle_client.get(f"/cards/{without.id}").text


def test_the_form_queues_a_run_and_redirects(idle_client: TestClient) -> None:
    form = {"preset": "placement", "card_id": CARD, **{k: str(v) for k, v in SMALL.items()}}
    plain = idle_client.post("/demos", data=form, follow_redirects=False)
    assert plain.status_code == 303
    run_id = plain.headers["location"].removeprefix("/demos/")
    assert idle_client.get(f"/api/demos/{run_id}").json()["params"] == SMALL

    htmx = idle_client.post("/demos", data=form, headers={"HX-Request": "true"})
    assert htmx.status_code == 200 and htmx.headers["hx-redirect"].startswith("/demos/")

    bad = idle_client.post("/demos", data={**form, "input_ms": "501"}, headers={"HX-Request": "true"})
    assert bad.status_code == 422
    soup = BeautifulSoup(bad.text, "html.parser")
    # Named as the form labels it, in a sentence.
    assert soup.select_one(".errors").get_text(strip=True) == "Input per batch must be between 0 and 500."
    assert soup.select_one('input[name="input_ms"]')["value"] == "501"  # what they typed stays

    assert idle_client.post("/demos", data=form, headers={"HX-Request": "true"}).status_code == 200
    full = idle_client.post("/demos", data=form, headers={"HX-Request": "true"})  # a fourth
    assert full.status_code == 200  # shown in place, so htmx swaps it in
    assert "3 demos waiting" in BeautifulSoup(full.text, "html.parser").select_one(".errors").text


def test_the_card_history_lists_only_this_persons_runs_on_the_card(idle_client: TestClient) -> None:
    run_id = submit(idle_client, params=SMALL, card_id=CARD)
    other = submit(idle_client, params=SMALL)  # no card
    fragment = idle_client.get(f"/cards/{CARD}/demo-runs", headers={"HX-Request": "true"})
    soup = BeautifulSoup(fragment.text, "html.parser")
    ids = [row["data-run-id"] for row in soup.select(".demo-history-row")]
    assert run_id in ids and other not in ids
    assert soup.select_one("#demo-history")["hx-trigger"] == "every 2s"  # a run is still active
    assert idle_client.get(f"/cards/{CARD}/demo-runs").text.startswith("<!doctype html>")


def test_a_gpu_preset_is_accepted_and_its_page_and_api_say_it_waits_for_a_gpu_worker(
    idle_client: TestClient, idle_app: FastAPI
) -> None:
    cpu_run = submit(idle_client, params=SMALL)
    run_id = submit(idle_client, "to-device", params={"steps": 6, "batch_mb": 1}, card_id=CARD)
    doc = idle_client.get(f"/api/demos/{run_id}").json()
    assert doc["status"] == "queued"
    assert doc["waiting"]["lane"] == "gpu" and doc["waiting"]["needs_gpu"] is True
    assert doc["waiting"]["workers"] == []
    assert "No GPU worker is running" in doc["waiting"]["message"]
    assert idle_client.get(f"/api/demos/{cpu_run}").json()["waiting"]["lane"] == "cpu"

    db = idle_app.state.db
    try:
        beat_row(db, "cpu-host:1", ["cpu"])  # a worker without a GPU changes nothing for this run
        soup = BeautifulSoup(idle_client.get(f"/demos/{run_id}").text, "html.parser")
        status = soup.select_one("#demo-status")
        # Its own lane: the CPU run queued before it is not ahead of it.
        assert "Position 1 in the queue for a GPU worker" in status.text
        warning = status.select_one(".no-worker")
        assert warning is not None and warning["data-lane"] == "gpu"
        assert "No GPU worker is running" in warning.text and "needs a GPU" in warning.text
        assert "pip install '.[gpu]'" in warning.text
        assert "The 1 worker(s) running now have no GPU" in warning.text
        assert status["hx-trigger"] == "every 1s"  # it keeps looking
        listed = {r["run_id"]: r for r in idle_client.get("/api/demos").json()["runs"]}
        assert listed[run_id]["waiting"]["workers"] == [] and listed[cpu_run]["waiting"]["workers"] == [
            "cpu-host:1"
        ]

        beat_row(db, "gpu-host:2", ["gpu", "cpu"], "NVIDIA test GPU")
        doc = idle_client.get(f"/api/demos/{run_id}").json()
        assert doc["waiting"]["workers"] == ["gpu-host:2"]
        assert doc["waiting"]["message"].startswith("Waiting for a GPU worker: gpu-host:2 (NVIDIA test GPU)")
        soup = BeautifulSoup(idle_client.get(f"/demos/{run_id}").text, "html.parser")
        assert soup.select_one(".no-worker") is None
        assert "gpu-host:2" in soup.select_one("#demo-status .waiting-for").text
    finally:
        with db.write_sessions() as session:
            claims.forget_worker(session, "cpu-host:1")
            claims.forget_worker(session, "gpu-host:2")


def test_a_worker_without_a_gpu_never_claims_a_gpu_run(idle_client: TestClient, idle_app: FastAPI) -> None:
    run_id = submit(idle_client, "to-device", params={"steps": 6, "batch_mb": 1})
    db = idle_app.state.db
    with db.write_sessions() as session:
        assert claims.claim(
            session, run_id=run_id, worker="cpu-host:1", timeout_seconds=HEARTBEAT_TIMEOUT_S, lanes=CPU
        ) == claims.OtherLane("gpu")
    assert idle_client.get(f"/api/demos/{run_id}").json()["status"] == "queued"
    with db.write_sessions() as session:
        claimed = claims.claim(
            session,
            run_id=run_id,
            worker="gpu-host:2",
            timeout_seconds=HEARTBEAT_TIMEOUT_S,
            lanes=("gpu", "cpu"),
        )
    assert isinstance(claimed, claims.Claimed) and claimed.preset == "to-device"
