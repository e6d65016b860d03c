"""Imports that are large or hostile: a refusal stays small, the merge lets others write between
its batches, one import per person runs at a time, and one cut short converges when run again."""

import json
import os
import signal
import threading
import time
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from bs4 import BeautifulSoup
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import func, select

from app.practice.models import Attempt
from app.storage.base import utcnow
from app.transfer import merge
from app.transfer.models import ImportGuard
from app.transfer.schemas import ReviewLogDoc
from app.web.security import CSRF_COOKIE
from tests.factories import DECK, OWNER_CARD
from tests.helpers.clients import csrf_client
from tests.helpers.html import HTMX
from tests.helpers.payloads import attempt_payload, import_upload
from tests.helpers.practice import T0, counts, review, write_session
from tests.servers import free_port, start_server, stop

pytestmark = pytest.mark.load

# What a review log must name; an empty row lacks each of them.
REQUIRED = sum(field.is_required() for field in ReviewLogDoc.model_fields.values())


def header(client: TestClient) -> dict[str, Any]:
    """An export with nothing in it: a valid file to fill."""
    doc: dict[str, Any] = client.get("/api/export.json").json()
    return doc


def log_row(card_id: str, index: int, tier: str = "junior", attempt_id: int | None = None) -> dict[str, Any]:
    at = T0 + timedelta(seconds=index)
    return {
        "card_id": card_id,
        "tier": tier,
        "rating": 3,
        "review_datetime": at.isoformat().replace("+00:00", "Z"),
        "review_duration_ms": 1000,
        "attempt_id": attempt_id,
    }


def attempt_row(index: int, card_id: str = OWNER_CARD) -> dict[str, Any]:
    return {
        "id": index + 1,
        "card_id": card_id,
        "tier": "middle",
        "kind": "solid",
        "follow_up": None,
        "text": f"answer number {index}",
        "choices": None,
        "score": None,
        "seconds": 12.5,
        "points": [],
        "rating": "good",
        "revealed": False,
        "created_at": (T0 + timedelta(seconds=index)).isoformat().replace("+00:00", "Z"),
    }


def large_file(doc: dict[str, Any], rows: int) -> dict[str, Any]:
    """`rows` rated answers on the served cards, each with its review, and a state for every
    card and tier they touch (so the import restores those as exported)."""
    cards = sorted(DECK)
    attempts = [attempt_row(i, cards[i % len(cards)]) for i in range(rows)]
    logs = [log_row(a["card_id"], i, "middle", a["id"]) for i, a in enumerate(attempts)]
    states = [
        {
            "card_id": card_id,
            "tier": "middle",
            "state": "review",
            "step": None,
            "stability": 12.0,
            "difficulty": 5.0,
            "due": "2026-04-01T00:00:00Z",
            "last_review": "2026-03-03T00:00:00Z",
            "first_review": "2026-03-02T09:30:00Z",
            "reps": 9,
            "lapses": 0,
        }
        for card_id in sorted({a["card_id"] for a in attempts})
    ]
    return doc | {"attempts": attempts, "review_logs": logs, "review_states": states}


def test_a_refusal_lists_fifty_problems_and_counts_the_rest(client: TestClient) -> None:
    doc = header(client) | {"review_logs": [{}] * 2_000}
    response = client.post("/api/import", json=doc)
    assert response.status_code == 422
    body = response.json()
    assert len(body["detail"]) == 50
    assert body["detail"][0]["loc"][:2] == ["review_logs", 0]
    assert len(body["detail"]) + body["more_problems"] == 2_000 * REQUIRED


def test_the_import_page_lists_fifty_problems_and_says_how_many_more(
    app: FastAPI, client: TestClient
) -> None:
    doc = header(client) | {"review_logs": [{}] * 2_000}
    files = {"file": ("backup.json", json.dumps(doc).encode(), "application/json")}
    response = client.post("/progress/import", files=files, headers=HTMX)
    assert response.status_code == 422
    page = BeautifulSoup(response.text, "html.parser")
    assert len(page.select("ul.errors li")) == 50
    more = 2_000 * REQUIRED - 50
    assert page.select_one("p.more-problems").get_text(strip=True) == f"… and {more:,} more problems."
    assert counts(app) == {"attempts": 0, "review_logs": 0, "review_states": 0}


def test_the_refusal_of_a_huge_bad_file_stays_small(client: TestClient) -> None:
    rows = 100_000
    body = json.dumps(header(client) | {"review_logs": [{"rating": 9}] * rows}).encode()
    response = client.post("/api/import", content=body, headers={"content-type": "application/json"})
    assert response.status_code == 422
    problems = response.json()
    assert (
        len(problems["detail"]) == 50
        and len(problems["detail"]) + problems["more_problems"] == rows * REQUIRED
    )
    assert len(response.content) < 20_000 < len(body) // 50


def test_reviews_of_cards_no_longer_served_are_kept_without_replays(app: FastAPI, client: TestClient) -> None:
    gone = [f"a-card-removed-{i}" for i in range(2_000)]
    doc = header(client) | {"review_logs": [log_row(card_id, i) for i, card_id in enumerate(gone)]}
    response = client.post("/api/import", json=doc)
    assert response.status_code == 200, response.text
    result = response.json()
    assert (result["review_logs_added"], result["review_states_replayed"]) == (2_000, 0)
    assert counts(app) == {"attempts": 0, "review_logs": 2_000, "review_states": 0}
    assert {log["card_id"] for log in client.get("/api/export.json").json()["review_logs"]} == set(gone)


def test_reviews_of_served_cards_still_replay_their_schedule(app: FastAPI, client: TestClient) -> None:
    review(app, "good", T0 - timedelta(days=1))
    doc = header(client) | {"review_logs": [log_row(OWNER_CARD, i, "middle") for i in range(3)]}
    result = client.post("/api/import", json=doc).json()
    assert (result["review_logs_added"], result["review_states_replayed"]) == (3, 1)
    assert client.get(f"/api/cards/{OWNER_CARD}/schedule?tier=middle").json()["reps"] == 4


def _guard_held_by_another_import(app: FastAPI, *, seconds: int) -> None:
    """Another import of the person's, its lease running out in `seconds` (past if negative)."""
    with write_session(app) as session:
        session.add(
            ImportGuard(
                user_id=1,
                lease_until=utcnow() + timedelta(seconds=seconds),
                digest="0" * 64,
                owner="another-import",
            )
        )


def test_a_second_import_while_one_runs_gets_429(app: FastAPI, client: TestClient) -> None:
    """The guard is a row in the database, so it holds whichever replica the second import reaches."""
    _guard_held_by_another_import(app, seconds=30)
    response = client.post("/api/import", json=large_file(header(client), 10))
    assert response.status_code == 429
    assert 1 <= int(response.headers["retry-after"]) <= 30
    assert counts(app) == {"attempts": 0, "review_logs": 0, "review_states": 0}


def test_while_an_import_runs_a_second_file_is_refused_before_it_is_read(
    app: FastAPI, client: TestClient
) -> None:
    _guard_held_by_another_import(app, seconds=30)
    # Not even JSON: read, it would be a 422; refused first, it is the 429 that says why.
    response = client.post(
        "/api/import", content=b"{" * 100_000, headers={"content-type": "application/json"}
    )
    assert response.status_code == 429, response.text
    assert "another import of yours" in response.json()["detail"]


def test_a_guard_left_by_a_killed_server_expires(app: FastAPI, client: TestClient) -> None:
    _guard_held_by_another_import(app, seconds=-1)
    response = client.post("/api/import", json=large_file(header(client), 10))
    assert response.status_code == 200, response.text
    assert response.json()["attempts_added"] == 10
    with app.state.db.read_sessions() as session:
        assert session.scalar(select(func.count()).select_from(ImportGuard)) == 0


def test_an_import_whose_lease_was_taken_over_stops_and_leaves_the_new_one_alone(
    app: FastAPI, client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An import that stopped reporting for longer than its lease (a long pause) finds another
    import of the person's running when it goes on: it stops, and touches nothing of the other's."""
    batches = 0
    merge_batch = merge._Import.attempts

    def paused_past_its_lease(run: merge._Import, docs: list[Any]) -> None:
        nonlocal batches
        batches += 1
        if batches == 2:  # meanwhile another import took the lapsed guard over
            with write_session(app) as session:
                guard = session.get_one(ImportGuard, 1)
                guard.owner, guard.lease_until = "another-import", utcnow() + timedelta(seconds=30)
        merge_batch(run, docs)

    monkeypatch.setattr(merge._Import, "attempts", paused_past_its_lease)
    response = client.post("/api/import", json=large_file(header(client), 3 * merge.BATCH_ROWS))
    assert response.status_code == 409
    assert "took over" in response.json()["detail"]
    assert _attempts_stored(app) == merge.BATCH_ROWS  # the first batch is kept
    with app.state.db.read_sessions() as session:
        assert session.get_one(ImportGuard, 1).owner == "another-import"


def _attempts_stored(app: FastAPI) -> int:
    with app.state.db.read_sessions() as session:
        return int(session.scalar(select(func.count()).select_from(Attempt)) or 0)


def test_another_person_answers_while_a_large_import_runs(
    team_app: FastAPI, signed_in: Callable[[str], TestClient]
) -> None:
    """Alice imports; Bob's answer is acknowledged before her import finishes, her second import
    meanwhile gets 429 and Bob's own import goes ahead (the guard is per person)."""
    alice, bob = signed_in("alice"), signed_in("bob")
    doc = large_file(header(alice), 6_000)
    finished: list[float] = []
    outcome: list[int] = []

    def run_import() -> None:
        response = alice.post("/api/import", json=doc)
        finished.append(time.monotonic())
        outcome.append(response.status_code)

    importer = threading.Thread(target=run_import)
    importer.start()
    # Once the import's first batches are stored, but long before its last.
    deadline = time.monotonic() + 60
    while _attempts_stored(team_app) == 0 and importer.is_alive() and time.monotonic() < deadline:
        time.sleep(0.005)
    answer = bob.post(
        f"/api/cards/{OWNER_CARD}/attempts",
        json=attempt_payload(tier="senior", text="mine", seconds=3.0, points=[]),
    )
    acknowledged = time.monotonic()
    second = alice.post("/api/import", json=header(alice))
    bobs_import = bob.post("/api/import", json=header(bob))
    importer.join(timeout=120)
    assert answer.status_code == 201 and finished and acknowledged < finished[0]
    assert second.status_code == 429 and bobs_import.status_code == 200
    assert outcome == [200]
    assert _attempts_stored(team_app) == 6_001


def comparable(doc: dict[str, Any]) -> list[str]:
    """What an import must restore, without the ids it renumbers and in no particular order."""
    created = {a["id"]: a["created_at"] for a in doc["attempts"]}
    rows = [{k: v for k, v in a.items() if k != "id"} for a in doc["attempts"]]
    rows += [log | {"attempt_id": created.get(log["attempt_id"])} for log in doc["review_logs"]]
    return sorted(json.dumps(row, sort_keys=True) for row in [*rows, *doc["review_states"]])


def test_an_import_cut_short_converges_when_run_again(
    app: FastAPI, client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Cut short after its reviews are in, before the replays they made owed: the re-run adds
    nothing twice and does the replays."""
    review(app, "good", T0 - timedelta(days=1))
    doc = large_file(header(client), 2_000)
    doc["review_states"] = [s for s in doc["review_states"] if s["card_id"] != OWNER_CARD]

    def cut_short(run: merge._Import, file: object) -> None:
        raise RuntimeError("the server stopped here")

    monkeypatch.setattr(merge._Import, "finish", cut_short)
    assert client.post("/api/import", json=doc).status_code == 500
    monkeypatch.undo()
    stored = counts(app)
    result = client.post("/api/import", json=doc).json()
    assert result["attempts_added"] == 0 and result["review_logs_added"] == 0
    assert result["review_states_replayed"] == 1  # the card whose state it had before
    assert counts(app) == stored
    exported = client.get("/api/export.json").json()
    mine = [s for s in exported["review_states"] if s["card_id"] == OWNER_CARD and s["tier"] == "middle"]
    logs_of_mine = [
        log for log in exported["review_logs"] if log["card_id"] == OWNER_CARD and log["tier"] == "middle"
    ]
    assert mine[0]["reps"] == len(logs_of_mine)
    with app.state.db.read_sessions() as session:
        assert session.scalar(select(func.count()).select_from(ImportGuard)) == 0


def _wait_for_attempts(url: str, deadline: float) -> None:
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{url}/api/attempts?limit=1", timeout=5).json():
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.01)


def _post_file(http: httpx.Client, body: bytes) -> httpx.Response:
    return http.post("/api/import", content=body, headers={"content-type": "application/json"}, timeout=300)


def test_an_import_killed_mid_way_converges_when_run_again(client: TestClient, tmp_path: Path) -> None:
    rows = 20_000
    doc = large_file(header(client), rows)
    body = json.dumps(doc).encode()
    port = free_port()
    env = {"IMPORT_LEASE_SECONDS": "1"}
    process, url = start_server(tmp_path, "--no-worker", port=port, env=env)
    outcome: list[object] = []

    def run_import() -> None:
        http = csrf_client(url)
        try:
            outcome.append(_post_file(http, body).status_code)
        except httpx.HTTPError as error:
            outcome.append(type(error).__name__)
        finally:
            http.close()

    importer = threading.Thread(target=run_import)
    importer.start()
    _wait_for_attempts(url, time.monotonic() + 120)
    os.kill(process.pid, signal.SIGKILL)
    process.wait(timeout=15)
    importer.join(timeout=60)
    assert outcome and outcome[0] != 200  # killed before it finished
    process, url = start_server(tmp_path, "--no-worker", port=port, env=env)
    http = csrf_client(url)
    try:
        part = len(http.get("/api/export.json", timeout=60).json()["attempts"])
        assert 0 < part < rows
        response = _post_file(http, body)
        while response.status_code == 429:  # the killed import's guard, until its lease ends
            time.sleep(int(response.headers["retry-after"]))
            response = _post_file(http, body)
        assert response.status_code == 200, response.text
        assert response.json()["attempts_already_present"] == part
        assert comparable(http.get("/api/export.json", timeout=60).json()) == comparable(doc)
    finally:
        http.close()
        stop(process)


def test_keys_the_format_lacks_are_named_and_their_values_not_kept(client: TestClient) -> None:
    unknown = {f"extra_{n}": "x" * 500_000 for n in range(10)}
    body = json.dumps(header(client) | unknown).encode()
    response = client.post("/api/import", content=body, headers={"content-type": "application/json"})
    assert response.status_code == 422
    named = {problem["loc"][-1] for problem in response.json()["detail"]}
    assert named == set(unknown)
    assert len(response.content) < 20_000


def test_an_import_sent_as_a_form_is_refused_with_a_sentence(
    app: FastAPI, anonymous_client: TestClient
) -> None:
    token = anonymous_client.get("/healthz").cookies[CSRF_COOKIE]
    response = anonymous_client.post("/api/import", data={"csrf_token": token}, files=import_upload(b"{}"))
    assert response.status_code == 415
    assert "application/json" in response.json()["detail"]
    assert counts(app) == {"attempts": 0, "review_logs": 0, "review_states": 0}
