"""Who reaches the team's pages: leads and admins see /team, only admins the audit log."""

from collections.abc import Callable

from fastapi.testclient import TestClient

LEAD_PAGES = ("/team", "/team/members/alice")


def test_a_member_is_refused_the_team_and_the_audit_log(signed_in: Callable[[str], TestClient]) -> None:
    bob = signed_in("bob")
    for url in (*LEAD_PAGES, "/admin/audit"):
        assert bob.get(url).status_code == 403, url
    assert bob.post("/team/assignments", data={"tier": "middle", "due": "2099-01-01"}).status_code == 403
    assert bob.post("/team/assignments/1/delete").status_code == 403


def test_a_lead_sees_the_team_but_not_the_audit_log(lena: TestClient) -> None:
    for url in LEAD_PAGES:
        assert lena.get(url).status_code == 200, url
    assert lena.get("/admin/audit").status_code == 403
    assert lena.get("/team/members/nobody").status_code == 404


def test_an_admin_sees_both(signed_in: Callable[[str], TestClient]) -> None:
    root = signed_in("root")
    for url in (*LEAD_PAGES, "/admin/audit"):
        assert root.get(url).status_code == 200, url


def test_everyone_has_their_own_privacy_page(signed_in: Callable[[str], TestClient]) -> None:
    assert signed_in("bob").get("/account/privacy").status_code == 200
