"""Who may use the author preview: authors and admins in a team, the local user alone; members are
refused every part of it, and only those who may author see it in the site's navigation."""

from collections.abc import Callable, Iterator

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from tests.factories import card_text
from tests.helpers.accounts import new_person
from tests.helpers.html import soup_of

AUTHOR_PASSWORD = "author pass phrase 9"


@pytest.fixture
def ann(team_app: FastAPI) -> Iterator[TestClient]:
    with new_person(team_app, "ann", "author", AUTHOR_PASSWORD) as client:
        yield client


def _uses(client: TestClient) -> list[int]:
    """The status of each part of the author preview for `client`."""
    text = card_text()
    return [
        client.get("/author").status_code,
        client.post("/author", data={"text": text}).status_code,
        client.post("/author/download", data={"text": text}).status_code,
        client.post("/api/author/check", json={"text": text}).status_code,
    ]


def _nav_links(client: TestClient) -> list[str]:
    return [str(a["href"]) for a in soup_of(client.get("/").text).select("header.site nav a")]


def test_a_member_is_refused_and_not_shown_the_way(signed_in: Callable[[str], TestClient]) -> None:
    bob = signed_in("bob")
    assert _uses(bob) == [403, 403, 403, 403]
    assert "/author" not in _nav_links(bob)
    refused = soup_of(bob.get("/author", headers={"Accept": "text/html"}).text)
    assert "Only an author or an admin may use the author preview." in refused.get_text()


def test_an_author_and_an_admin_use_it(
    ann: TestClient,
    signed_in: Callable[[str], TestClient],
) -> None:
    for client in (ann, signed_in("root")):
        assert _uses(client) == [200, 200, 200, 200]
        assert "/author" in _nav_links(client)


def test_an_author_is_still_refused_the_team_and_the_admin_pages(ann: TestClient) -> None:
    for url in ("/team", "/admin/users", "/admin/audit"):
        assert ann.get(url).status_code == 403, url


def test_the_local_user_authors_in_single_mode(author: TestClient) -> None:
    assert _uses(author) == [200, 200, 200, 200]
    page = soup_of(author.get("/author").text)
    link = page.select_one("header.site nav a[href='/author']")
    assert link is not None and link.get("aria-current") == "page"
