"""What an operator running replicas relies on: liveness that touches nothing, readiness that
follows the database and the queue, Prometheus metrics that add up across web processes and
reach only those allowed, request ids, and JSON log lines that name their request."""

import json
import os
import signal
import time
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import httpx
import psutil
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families
from sqlalchemy.engine import make_url

from app import PROJECT_ROOT
from app.factory import create_app
from app.settings import Settings
from app.storage import migrations
from tests.factories import OWNER_CARD
from tests.helpers.clients import with_csrf
from tests.helpers.metrics import scrape
from tests.helpers.payloads import attempt_payload
from tests.servers import free_port, start_server
from tests.services import database_on, database_url, postgres, postgres_server, redis_server

SECRET = "operations-test-secret-key-that-is-long-enough"
Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


def _settings(data: Path, **values: Any) -> Settings:
    values = {
        "data_dir": data,
        "database_url": database_url(data),
        "content_dir": PROJECT_ROOT / "content",
        "secret_key": SECRET,
        "content_poll_seconds": 0,
        "allowed_hosts": ["testserver"],
        **values,
    }
    return Settings.model_validate(values)


def _app(data: Path, **values: Any) -> FastAPI:
    settings = _settings(data, **values)
    migrations.upgrade(settings)
    return create_app(settings)


def _samples(text: str) -> Samples:
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def _value(samples: Samples, name: str, **labels: str) -> float:
    return samples.get((name, frozenset(labels.items())), 0.0)


# --- /healthz and /readyz ------------------------------------------------------------------------


def test_liveness_touches_nothing_while_readiness_names_what_is_down(tmp_path: Path) -> None:
    nowhere = free_port()  # nothing listens there: a database and a queue that are down
    settings = _settings(
        tmp_path,
        database_url=f"postgresql+psycopg://postgres@127.0.0.1:{nowhere}/tiercards",
        queue_url=f"redis://127.0.0.1:{nowhere}/0",
    )
    with TestClient(create_app(settings)) as client:
        live = client.get("/healthz")
        assert (live.status_code, live.json()) == (200, {"status": "ok"})
        ready = client.get("/readyz")
    assert ready.status_code == 503
    body = ready.json()
    assert (body["status"], body["database"], body["queue"]) == ("unavailable", "down", "down")
    assert set(body["down"]) == {"database", "queue"}


def test_readiness_says_what_it_checked_and_counts_the_cards(client: TestClient) -> None:
    response = client.get("/readyz")
    assert response.status_code == 200
    body = response.json()
    assert (body["status"], body["database"], body["queue"], body["down"]) == ("ok", "ok", "ok", {})
    assert body["cards"] >= 3 and body["broken_files"] == 0


def test_readiness_follows_postgres_and_redis_back_without_a_restart(tmp_path: Path) -> None:
    with ExitStack() as stack:
        admin_url = stack.enter_context(postgres_server(tmp_path / "postgres"))
        postgres_port = str(make_url(admin_url).port)
        redis_port = free_port()
        redis = ExitStack()
        stack.callback(redis.close)
        redis.enter_context(redis_server(tmp_path, redis_port))
        app = _app(
            tmp_path / "data",
            database_url=database_on(admin_url, "readiness"),
            queue_url=f"redis://127.0.0.1:{redis_port}/0",
        )
        client = stack.enter_context(TestClient(app))

        def ready() -> dict[str, Any]:
            response = client.get("/readyz")
            assert response.status_code == (200 if response.json()["status"] == "ok" else 503)
            return dict(response.json())

        assert ready()["status"] == "ok"

        redis.close()
        stopped = ready()
        assert (stopped["status"], stopped["database"], stopped["queue"]) == ("unavailable", "ok", "down")
        assert list(stopped["down"]) == ["queue"]
        redis.enter_context(redis_server(tmp_path, redis_port))
        assert ready()["status"] == "ok"

        postgres("stop", tmp_path / "postgres")
        stopped = ready()
        assert (stopped["status"], stopped["database"], stopped["queue"]) == ("unavailable", "down", "ok")
        assert list(stopped["down"]) == ["database"]
        assert client.get("/healthz").status_code == 200
        postgres("start", tmp_path / "postgres", postgres_port)
        assert ready()["status"] == "ok"


# --- /metrics --------------------------------------------------------------------------------------


@pytest.fixture
def scraped(tmp_path: Path) -> Iterator[TestClient]:
    """An app on a data folder of its own, asked from loopback as a Prometheus beside it would."""
    with TestClient(_app(tmp_path), client=("127.0.0.1", 50000)) as client:
        yield with_csrf(client)


def _scrape(client: TestClient) -> Samples:
    response = scrape(client)
    assert response.headers["content-type"].startswith("text/plain")
    return _samples(response.text)


def test_requests_are_counted_by_route_template_and_answers_by_kind(scraped: TestClient) -> None:
    card = {"route": "/cards/{card_id}", "method": "GET", "status": "2xx"}
    before = _scrape(scraped)
    for _ in range(3):  # the first renders the page, the others come from the page cache
        assert scraped.get(f"/cards/{OWNER_CARD}").status_code == 200
    assert scraped.get("/no/such/page").status_code == 404
    assert scraped.get("/static/vendor/htmx.min.js").status_code == 200
    assert scraped.post(f"/api/cards/{OWNER_CARD}/attempts", json=attempt_payload()).status_code == 201
    after = _scrape(scraped)

    def counted(name: str, **labels: str) -> float:
        return _value(after, name, **labels) - _value(before, name, **labels)

    assert counted("tiercards_http_requests_total", **card) == 3
    assert counted("tiercards_http_request_duration_seconds_count", **card) == 3
    assert counted("tiercards_http_requests_total", route="unrouted", method="GET", status="4xx") == 1
    assert counted("tiercards_http_requests_total", route="/static", method="GET", status="2xx") == 1
    assert counted("tiercards_answers_recorded_total", kind="solid") == 1
    routes = {dict(labels).get("route") for _name, labels in after}
    assert not any(OWNER_CARD in route or "/no/such" in route for route in routes if route)


def test_demo_runs_queue_and_workers_are_read_at_scrape_time(scraped: TestClient) -> None:
    empty = _scrape(scraped)
    assert _value(empty, "tiercards_demo_runs", status="queued") == 0
    assert _value(empty, "tiercards_demo_queue_depth") == 0
    assert scraped.post("/api/demos", json={"preset": "placement"}).status_code == 202
    queued = _scrape(scraped)
    assert _value(queued, "tiercards_demo_runs", status="queued") == 1
    assert _value(queued, "tiercards_demo_queue_depth") == 1
    assert ("tiercards_demo_workers_alive", frozenset()) in queued
    assert _value(queued, "tiercards_demo_workers_alive") == 0


LOOPBACK_PROXY = {"trusted_proxies": ["127.0.0.1/32"]}


@pytest.mark.parametrize(
    ("peer", "headers", "values", "status"),
    [
        pytest.param("127.0.0.1", {}, {}, 200, id="loopback"),
        pytest.param("127.0.0.1", {}, {"auth_mode": "accounts"}, 200, id="loopback, no sign-in needed"),
        pytest.param("192.0.2.10", {}, {}, 404, id="another machine"),
        pytest.param("192.0.2.10", {}, {"metrics_allowed": ["192.0.2.0/24"]}, 200, id="an allowed network"),
        pytest.param(
            "127.0.0.1",
            {"X-Forwarded-For": "203.0.113.9", "X-Forwarded-Proto": "https"},
            LOOPBACK_PROXY,
            404,
            id="the internet through a proxy on this machine",
        ),
        pytest.param(
            "127.0.0.1",
            {"X-Forwarded-Proto": "https"},
            LOOPBACK_PROXY,
            404,
            id="a proxy that does not name the visitor",
        ),
        pytest.param(
            "127.0.0.1",
            {"X-Forwarded-For": "10.1.2.3"},
            {"metrics_allowed": ["10.0.0.0/8", "127.0.0.1/32"]},
            404,
            id="a proxy not in TRUSTED_PROXIES",
        ),
        pytest.param(
            "127.0.0.1",
            {"X-Forwarded-For": "10.1.2.3"},
            {**LOOPBACK_PROXY, "metrics_allowed": ["10.0.0.0/8"]},
            200,
            id="an allowed scraper through a trusted proxy",
        ),
    ],
)
def test_metrics_answer_only_those_allowed(
    settings: Settings, peer: str, headers: dict[str, str], values: dict[str, Any], status: int
) -> None:
    app = create_app(Settings.model_validate({**settings.model_dump(), **values}))
    with TestClient(app, client=(peer, 50000)) as client:
        response = client.get("/metrics", headers=headers)
        assert response.status_code == status
        if status == 404:  # nothing tells it from a path that does not exist
            assert response.json() == client.get("/no-such-path", headers=headers).json()
        else:
            assert "tiercards_http_requests_total" in response.text


def test_metrics_allowed_reads_addresses_and_networks(tmp_path: Path) -> None:
    assert _settings(tmp_path, metrics_allowed="").metrics_allowed == []
    parsed = _settings(tmp_path, metrics_allowed="10.0.0.0/8, 192.0.2.7").metrics_allowed
    assert [str(network) for network in parsed] == ["10.0.0.0/8", "192.0.2.7/32"]
    assert [str(network) for network in _settings(tmp_path).metrics_allowed] == ["127.0.0.0/8", "::1/128"]


# --- Request ids ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("sent", "kept"),
    [
        ("edge-7f3a.retry_2", True),
        ("x" * 65, False),
        ("two words", False),
        ("<script>", False),
        ("", False),
    ],
)
def test_a_request_id_is_kept_when_well_formed_and_made_otherwise(
    client: TestClient, sent: str, kept: bool
) -> None:
    returned = client.get("/healthz", headers={"X-Request-ID": sent}).headers["x-request-id"]
    if kept:
        assert returned == sent
    else:
        assert returned != sent and len(returned) == 32 and int(returned, 16) >= 0


def test_every_answer_carries_a_request_id_refusals_too(client: TestClient) -> None:
    answers = [
        client.get("/no-such-page"),
        client.get("/healthz", headers={"Host": "attacker.example"}),
        client.post(f"/api/cards/{OWNER_CARD}/attempts", json={}, headers={"X-CSRF-Token": "forged"}),
    ]
    assert [answer.status_code for answer in answers] == [404, 400, 403]
    ids = [answer.headers["x-request-id"] for answer in answers]
    assert len(set(ids)) == 3


# --- Real servers ---------------------------------------------------------------------------------


def _web_processes(server: int) -> list[int]:
    """The uvicorn processes answering for `tiercards serve`: its live children but
    multiprocessing's resource tracker."""
    found = []
    for child in psutil.Process(server).children():
        try:
            if child.status() != psutil.STATUS_ZOMBIE and "resource_tracker" not in " ".join(child.cmdline()):
                found.append(child.pid)
        except psutil.NoSuchProcess:
            continue
    return found


def _replaced(server: int, killed: int) -> bool:
    alive = _web_processes(server)
    return len(alive) == 2 and killed not in alive


def _stop(process: Any) -> None:
    process.terminate()
    process.wait(timeout=30)


def test_serve_with_two_workers_adds_up_their_counts_and_outlives_one_killed(tmp_path: Path) -> None:
    process, url = start_server(tmp_path / "data", "--no-worker", "--workers", "2")
    try:
        workers = _web_processes(process.pid)
        assert len(workers) == 2
        cards = {"route": "/api/cards", "method": "GET", "status": "2xx"}

        def ask(times: int) -> None:
            for _ in range(times):  # a connection each, so either process may take it
                assert httpx.get(f"{url}/api/cards", timeout=10).status_code == 200

        ask(30)
        assert (
            _value(_samples(httpx.get(f"{url}/metrics").text), "tiercards_http_requests_total", **cards) == 30
        )

        killed = workers[0]
        os.kill(killed, signal.SIGKILL)
        ask(20)  # the other process answers meanwhile
        counted = _samples(httpx.get(f"{url}/metrics").text)
        # The killed process's counts stay in its files.
        assert _value(counted, "tiercards_http_requests_total", **cards) == 50
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not _replaced(process.pid, killed):
            time.sleep(0.2)
        assert _replaced(process.pid, killed), "uvicorn did not start a process in place of the killed one"
    finally:
        _stop(process)


def test_production_logs_json_lines_that_name_their_request(tmp_path: Path) -> None:
    log_path = tmp_path / "server.log"
    env = {
        "ENVIRONMENT": "production",
        "SECRET_KEY": SECRET,
        "ALLOWED_HOSTS": "127.0.0.1",
        # A queue that is down, so that /readyz writes a warning while it handles its request.
        "QUEUE_URL": f"redis://127.0.0.1:{free_port()}/0",
    }
    with log_path.open("wb") as log:
        process, url = start_server(tmp_path / "data", "--no-worker", env=env, stderr=log)
        try:
            card = httpx.get(f"{url}/cards/{OWNER_CARD}", headers={"X-Request-ID": "trace-42"})
            ready = httpx.get(f"{url}/readyz", timeout=10)
            counted = _samples(httpx.get(f"{url}/metrics").text)
        finally:
            _stop(process)
    assert card.headers["x-request-id"] == "trace-42" and ready.status_code == 503
    # One process answered: its counts reach /metrics too.
    assert _value(counted, "tiercards_http_requests_total", route="/readyz", method="GET", status="5xx") == 1

    lines = [json.loads(line) for line in log_path.read_text().splitlines() if line]
    for line in lines:
        assert {"time", "level", "logger", "message", "request_id"} <= set(line)
    access = [line for line in lines if line["logger"] == "tiercards.access"]
    (card_line,) = [line for line in access if line["request_id"] == "trace-42"]
    assert (card_line["method"], card_line["route"], card_line["status"]) == ("GET", "/cards/{card_id}", 200)
    assert card_line["duration_ms"] > 0
    ready_id = ready.headers["x-request-id"]
    written = [line for line in lines if line["request_id"] == ready_id]
    assert any(line["logger"] == "tiercards.access" for line in written)
    assert any("demo queue" in line["message"] and line["level"] == "warning" for line in written)
    # uvicorn's own access lines would repeat each request without its id.
    assert not [line for line in lines if line["logger"] == "uvicorn.access"]
