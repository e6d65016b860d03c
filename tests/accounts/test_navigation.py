"""The site's navigation follows the person asking: Team for leads and admins, Admin for admins,
neither for anyone else, whoever asked for the page first and however it was served."""

from collections.abc import Callable

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from tests.factories import OWNER_CARD
from tests.helpers.accounts import new_person
from tests.helpers.html import soup_of

# One person of each role besides the team's own (alice and bob, members; root, an admin).
PEOPLE = {"author": "ari", "lead": "leo"}
PASSWORD = "a long enough phrase"


def site_links(client: TestClient, url: str) -> dict[str, str]:
    """The top navigation's links, by their text, on the page at `url`."""
    page = soup_of(client.get(url))
    return {a.get_text(strip=True): str(a["href"]) for a in page.select("header.site nav a")}


@pytest.mark.parametrize(("name", "team", "admin"), [("bob", False, False), ("root", True, True)])
def test_members_see_neither_link_and_admins_both(
    signed_in: Callable[[str], TestClient], name: str, team: bool, admin: bool
) -> None:
    person = signed_in(name)
    links = site_links(person, "/progress")
    assert ("Team" in links, "Admin" in links) == (team, admin)
    for text in ("Team", "Admin"):
        if text in links:  # each link reaches a page the person may open
            assert person.get(links[text]).status_code == 200


@pytest.mark.parametrize(("role", "team"), [("author", False), ("lead", True)])
def test_leads_see_team_and_authors_do_not_and_neither_sees_admin(
    team_app: FastAPI, role: str, team: bool
) -> None:
    with new_person(team_app, PEOPLE[role], role, PASSWORD) as person:
        links = site_links(person, "/")
        assert ("Team" in links) == team
        assert "Admin" not in links
        if team:
            assert links["Team"] == "/team"
            current = soup_of(person.get("/team")).select_one("header.site nav a[aria-current='page']")
            assert current is not None and current.get_text(strip=True) == "Team"


def test_the_admin_link_opens_the_user_list_and_marks_it_current(
    signed_in: Callable[[str], TestClient],
) -> None:
    root = signed_in("root")
    assert site_links(root, "/")["Admin"] == "/admin/users"
    current = soup_of(root.get("/admin/users")).select_one("header.site nav a[aria-current='page']")
    assert current is not None and current.get_text(strip=True) == "Admin"


@pytest.mark.parametrize(
    "url", ["/", f"/cards/{OWNER_CARD}", f"/cards/{OWNER_CARD}?tier=senior", "/progress"]
)
def test_a_member_never_sees_the_links_of_a_lead_or_an_admin_who_asked_first(
    team_app: FastAPI, signed_in: Callable[[str], TestClient], url: str
) -> None:
    root, bob = signed_in("root"), signed_in("bob")
    with new_person(team_app, PEOPLE["lead"], "lead", PASSWORD) as lead:
        for turn in range(2):  # the second round may come from the page cache the first filled
            as_admin, as_lead, as_member = (
                site_links(root, url),
                site_links(lead, url),
                site_links(bob, url),
            )
            assert ("Team" in as_admin, "Admin" in as_admin) == (True, True), turn
            assert ("Team" in as_lead, "Admin" in as_lead) == (True, False), turn
            assert ("Team" in as_member, "Admin" in as_member) == (False, False), turn
        # Nor may a browser or a shared proxy keep a copy to hand to someone else.
        assert bob.get(url).headers["cache-control"] == "private, no-store"


def test_one_person_on_their_own_machine_sees_neither(client: TestClient) -> None:
    links = site_links(client, "/")
    assert "Team" not in links and "Admin" not in links and "Library" in links


def test_the_audit_log_is_in_the_admins_navigation_and_marked_current_there(
    signed_in: Callable[[str], TestClient],
) -> None:
    root = signed_in("root")
    assert site_links(root, "/")["Audit log"] == "/admin/audit"
    current = soup_of(root.get("/admin/audit")).select("header.site nav a[aria-current='page']")
    assert [a.get_text(strip=True) for a in current] == ["Audit log"]
    assert "Audit log" not in site_links(signed_in("bob"), "/")


def test_a_signed_out_page_offers_sign_in_and_a_signed_in_one_the_account(
    team_app: FastAPI, signed_in: Callable[[str], TestClient]
) -> None:
    with TestClient(team_app) as stranger:
        links = site_links(stranger, "/login")
    assert links.get("Sign in") == "/login" and "Account" not in links
    links = site_links(signed_in("bob"), "/")
    assert links.get("Account") == "/account" and "Sign in" not in links
