"""The page cache serves only what is the same for everyone who may see it: each person gets the
navigation of their own role and their own CSRF token, whoever asked for the URL first; and no
browser or proxy keeps a copy of a page that carries a person's own things."""

from collections.abc import Callable

import pytest
from bs4 import BeautifulSoup
from fastapi import FastAPI
from fastapi.testclient import TestClient

from app.web.openapi import route_table
from tests.factories import OWNER_CARD
from tests.helpers.accounts import fresh_client
from tests.helpers.clients import token_in
from tests.helpers.payloads import attempt_payload
from tests.helpers.routes import ROUTES
from tests.helpers.speech import audio_file, finish, recording_form

CACHED_PAGES = ("/", f"/cards/{OWNER_CARD}", f"/cards/{OWNER_CARD}?tier=senior")


def _site_links(html: str) -> list[str]:
    nav = BeautifulSoup(html, "html.parser").find("nav", attrs={"aria-label": "Site"})
    assert nav is not None
    return [a.get_text(strip=True) for a in nav.find_all("a")]


@pytest.mark.parametrize("url", CACHED_PAGES)
def test_admin_then_member_then_stranger_each_see_their_own_chrome(
    team_app: FastAPI,
    signed_in: Callable[[str], TestClient],
    url: str,
) -> None:
    root, bob = signed_in("root"), signed_in("bob")
    for turn in range(2):  # the second round is served from the cache each first round filled
        as_admin, as_member = root.get(url), bob.get(url)
        assert as_admin.status_code == as_member.status_code == 200, turn
        assert "Author" in _site_links(as_admin.text)
        assert "Author" not in _site_links(as_member.text)
        assert token_in(as_admin.text) == root.headers["X-CSRF-Token"]
        assert token_in(as_member.text) == bob.headers["X-CSRF-Token"]
        stranger = fresh_client(team_app).get(url)
        assert stranger.status_code == 303
        assert stranger.headers["location"].startswith("/login")


def test_a_member_first_on_a_card_page_does_not_hide_authoring_from_the_admin(
    signed_in: Callable[[str], TestClient],
) -> None:
    url = f"/cards/{OWNER_CARD}"
    bob, root = signed_in("bob"), signed_in("root")
    assert "Author" not in _site_links(bob.get(url).text)
    links = _site_links(root.get(url).text)
    assert "Author" in links
    assert root.get("/author").status_code == 200


def test_a_token_from_a_cached_page_works_only_for_its_own_person(
    signed_in: Callable[[str], TestClient],
) -> None:
    url = f"/cards/{OWNER_CARD}"
    root, bob = signed_in("root"), signed_in("bob")
    roots_token = token_in(root.get(url).text)
    bobs_token = token_in(bob.get(url).text)
    assert roots_token != bobs_token
    payload = attempt_payload(text="mine", seconds=3)
    attempts = f"/api/cards/{OWNER_CARD}/attempts"
    assert bob.post(attempts, json=payload, headers={"X-CSRF-Token": roots_token}).status_code == 403
    assert bob.post(attempts, json=payload, headers={"X-CSRF-Token": bobs_token}).status_code == 201


def _cache_directives(response_headers: dict[str, str]) -> set[str]:
    return {part.strip() for part in response_headers.get("cache-control", "").split(",") if part.strip()}


def test_no_page_a_signed_in_person_reads_may_be_kept_by_a_shared_cache(
    team_app: FastAPI,
    signed_in: Callable[[str], TestClient],
) -> None:
    """Walks the route table: every GET a signed-in person reaches (their own things, the shared
    pages carrying their navigation and token, their role's pages) says private, no-store."""
    root = signed_in("root")
    recording = root.post(
        f"/api/cards/{OWNER_CARD}/recordings", files=audio_file(), data=recording_form()
    ).json()
    finish(team_app, recording["id"], keep_days=7)  # its page, its JSON and its audio are read below
    started = root.post("/interview", data={"source": "cards", "card": OWNER_CARD}, follow_redirects=False)
    answered = root.post(
        f"/api/cards/{OWNER_CARD}/attempts", json=attempt_payload(text="Prefetch overlaps.", seconds=3)
    )
    things = {
        "attempt_id": answered.json()["id"],
        "session_id": started.headers["location"].rsplit("/", 1)[1],
        "card_id": OWNER_CARD,
        "run_id": 1,
        "name": "bob",
        "token": "no-such-invite",
        "note_key": "00000000",
        "recording_id": recording["id"],
        "key": "0" * 64,
        "proposal_id": 1,
    }
    checked = []
    for method, path in route_table(team_app):
        if method != "GET" or ROUTES[(method, path)] == "public":
            continue
        response = root.get(path.format(**things))
        directives = _cache_directives(dict(response.headers))
        assert "no-store" in directives, (path, response.status_code, directives)
        assert directives <= {"private", "no-store"}, (path, directives)
        checked.append(path)
    assert "/account" in checked and "/progress" in checked and "/" in checked


def test_the_sign_in_page_is_not_kept_but_static_files_may_be(team_app: FastAPI) -> None:
    stranger = fresh_client(team_app)
    assert "no-store" in _cache_directives(dict(stranger.get("/login").headers))
    assert "no-store" not in _cache_directives(dict(stranger.get("/static/css/app.css").headers))
