"""/admin/audit shows sign-ins, role changes, imports and exports: who, when, from where, what."""

from collections.abc import Callable

from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from tests.factories import OWNER_CARD
from tests.helpers.html import text_of
from tests.helpers.practice import post_attempt

FIELDS = ("actor", "about", "address", "detail")


def events(admin: TestClient, **filters: str) -> list[dict[str, str]]:
    response = admin.get("/admin/audit", params=filters)
    assert response.status_code == 200, response.text
    page = BeautifulSoup(response.text, "html.parser")
    return [
        {"kind": str(row["data-kind"])} | {field: text_of(row, f".{field}") for field in FIELDS}
        for row in page.select("tr.event")
    ]


def test_sign_in_role_change_import_and_export_are_logged(signed_in: Callable[[str], TestClient]) -> None:
    alice, root = signed_in("alice"), signed_in("root")
    post_attempt(alice, OWNER_CARD)
    exported = alice.get("/api/export.json")
    assert exported.status_code == 200
    assert alice.get("/api/export.csv", params={"table": "reviews"}).status_code == 200
    assert alice.post("/api/import", content=exported.content).status_code == 200
    upload = {"file": ("mine.json", exported.content, "application/json")}
    assert alice.post("/progress/import", files=upload).status_code == 200
    assert root.post("/admin/users/bob", data={"role": "lead"}).status_code == 200

    logged = events(root)
    kinds = [e["kind"] for e in logged]
    assert kinds[:6] == ["role_changed", "import", "import", "export", "export", "sign_in"]  # newest first
    role_change, uploaded, imported, csv, json = logged[:5]
    assert role_change["actor"] == "root" and role_change["about"] == "bob"
    assert role_change["detail"] == "old member, new lead, via admin"
    assert imported == {
        "kind": "import",
        "actor": "alice",
        "about": "alice",
        # Named as the sign-in is: by the one trusted-proxy-aware helper (no IP for a test client).
        "address": logged[5]["address"],
        "detail": "via api",
    }
    assert uploaded["detail"] == "via upload"
    assert csv["detail"] == "format csv reviews" and json["detail"] == "format json"
    assert {e["about"] for e in logged if e["kind"] == "sign_in"} == {"alice", "root"}

    assert [e["kind"] for e in events(root, kind="export")] == ["export", "export"]
    assert {e["kind"] for e in events(root, person="bob")} == {"role_changed", "user_created"}
    assert events(root, person="nobody") == []


def test_author_checks_are_listed_only_when_asked_for(signed_in: Callable[[str], TestClient]) -> None:
    """Each API check is counted in the log for its rate limit; a busy author's checks would push
    the sign-ins off the page, so they show only under their own kind."""
    root = signed_in("root")
    for _ in range(3):
        assert root.post("/api/author/check", json={"text": "not a card"}).status_code == 200
    assert "author_check" not in [e["kind"] for e in events(root)]
    checks = events(root, kind="author_check")
    assert [e["kind"] for e in checks] == ["author_check"] * 3 and checks[0]["actor"] == "root"
