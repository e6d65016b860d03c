"""Isolation, proved route by route from the app's own route table: a route nobody classified
in tests/helpers/routes.py fails the suite. Alice records an answer, a demo run, her settings and
a token; bob, signed in as a member, reaches none of it through any route, and strangers reach no
route but the public ones."""

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from app import PROJECT_ROOT
from app.web.openapi import route_table
from tests.factories import OWNER_CARD
from tests.helpers.accounts import PASSWORDS, fresh_client, running_team, sign_in
from tests.helpers.payloads import attempt_payload
from tests.helpers.routes import ROUTES
from tests.helpers.speech import audio_file, finish, recording_form

MARKER = "alice-secret-answer-7f3a"


def test_every_route_is_classified(team_app: FastAPI) -> None:
    served = set(route_table(team_app))
    assert sorted(served - set(ROUTES)) == [], "classify these routes in ROUTES"
    assert sorted(set(ROUTES) - served) == [], "these routes are gone: remove them from ROUTES"


@pytest.fixture(scope="module")
def team_app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FastAPI]:
    """One team for the module: each test leaves alice's things as they were, and checks that it did
    (a test that changed them would fail, and so would the ones after it)."""
    with running_team(tmp_path_factory.mktemp("isolation")) as app:
        yield app


@pytest.fixture(scope="module")
def alices(team_app: FastAPI) -> Iterator[dict[str, Any]]:
    """Alice's things, by the path parameter that names them."""
    alice = sign_in(fresh_client(team_app), "alice")
    recording = alice.post(
        f"/api/cards/{OWNER_CARD}/recordings", files=audio_file(), data=recording_form()
    ).json()
    finish(team_app, recording["id"], text=f" {MARKER} said aloud.", keep_days=7)
    attempt = alice.post(
        f"/api/cards/{OWNER_CARD}/attempts",
        json=attempt_payload(text=MARKER, seconds=3),
    ).json()
    run = alice.post("/api/demos", json={"preset": "placement", "card_id": OWNER_CARD}).json()
    assert (
        alice.put(
            "/api/settings", json={"target_tier": "principal", "desired_retention": 0.931, "new_per_day": 7}
        ).status_code
        == 200
    )
    alice.post("/account/tokens", data={"name": "alice-token", "password": PASSWORDS["alice"]})
    token_id = next(i for i in range(1, 50) if alice.post(f"/account/tokens/{i}/revoke").status_code == 200)
    alice.post("/account/tokens", data={"name": "alice-token", "password": PASSWORDS["alice"]})
    started = alice.post("/interview", data={"source": "cards", "card": OWNER_CARD}, follow_redirects=False)
    card_file = (PROJECT_ROOT / "content" / f"{OWNER_CARD}.md").read_text(encoding="utf-8")
    suggested = alice.post(
        f"/api/cards/{OWNER_CARD}/proposals",
        json={"markdown": card_file.replace("## Basics\n", "## Basics\nClearer. ", 1), "reason": MARKER},
    ).json()
    yield {
        "session_id": started.headers["location"].rsplit("/", 1)[1],
        "card_id": OWNER_CARD,
        "attempt_id": attempt["id"],
        "run_id": run["run_id"],
        "token_id": token_id + 1,
        "name": "alice",
        "token": "not-an-invite",
        "invite_id": "0" * 64,
        "assignment_id": 1,
        "note_key": "00000000",
        "recording_id": recording["id"],
        "proposal_id": suggested["id"],
        "key": "0" * 64,
        "client": alice,
    }
    alice.close()


@pytest.fixture(scope="module")
def bobs_browser(team_app: FastAPI) -> Iterator[dict[str, TestClient]]:
    browser = {"client": sign_in(fresh_client(team_app), "bob")}
    yield browser
    browser["client"].close()


@pytest.fixture
def bob(team_app: FastAPI, bobs_browser: dict[str, TestClient]) -> TestClient:
    """Bob, signed in: again only when a route he tried (/logout) signed him out, since signing in
    for every test would meet the sign-in throttle."""
    if bobs_browser["client"].get("/api/me").status_code != 200:
        bobs_browser["client"].close()
        bobs_browser["client"] = sign_in(fresh_client(team_app), "bob")
    return bobs_browser["client"]


def _url(path: str, things: dict[str, Any]) -> str:
    return path.format(**{k: v for k, v in things.items() if k != "client"})


def _reveals_alice(text: str, things: dict[str, Any], url: str) -> list[str]:
    """Alice's things in a response, leaving out what bob put in the URL himself (a 404 may say
    "no demo run with id …" back to him)."""
    clues = (MARKER, str(things["run_id"]), "alice-token", "0.931")
    return [clue for clue in clues if clue in text and clue not in url]


@pytest.mark.parametrize(("method", "path"), sorted(k for k, v in ROUTES.items() if v == "own"))
def test_bob_never_reaches_alices_things(
    alices: dict[str, Any], bob: TestClient, method: str, path: str
) -> None:
    url = _url(path, alices)
    response = bob.request(method, url, data={} if method == "POST" else None)
    assert response.status_code < 500
    assert _reveals_alice(response.text, alices, url) == [], f"{method} {path} showed bob alice's data"
    if "{" in path and "{card_id}" not in path:  # it names one of alice's things
        assert response.status_code in (404, 422), f"{method} {path} reached alice's thing for bob"
    # Alice's own view is unchanged by whatever bob tried.
    mine = alices["client"].get(f"/api/attempts?card_id={OWNER_CARD}").json()
    assert [a["text"] for a in mine] == [MARKER]
    assert alices["client"].get(f"/api/demos/{alices['run_id']}").status_code == 200


@pytest.mark.parametrize(
    ("method", "path"), sorted(k for k, v in ROUTES.items() if v in ("admin", "lead", "author"))
)
def test_members_are_refused_admin_lead_and_author_routes(
    alices: dict[str, Any], bob: TestClient, method: str, path: str
) -> None:
    assert bob.request(method, _url(path, alices)).status_code == 403


@pytest.mark.parametrize(("method", "path"), sorted(k for k, v in ROUTES.items() if v != "public"))
def test_strangers_reach_no_route_but_the_public_ones(
    team_app: FastAPI, alices: dict[str, Any], method: str, path: str
) -> None:
    response = fresh_client(team_app).request(method, _url(path, alices))
    expected = 401 if path.startswith("/api/") else 303
    assert response.status_code == expected
    if expected == 303:
        assert response.headers["location"].startswith("/login?next=")
