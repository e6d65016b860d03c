"""Invites that work the first time: the CLI says what it made and on which address, and
/admin/users lists the invites still open, each with its link to copy and a way to revoke it."""

import re
import secrets
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from bs4 import Tag
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import func, select, update

from app.accounts.models import AuditEvent, Invite
from app.factory import create_app
from app.settings import Settings
from app.storage.base import utcnow
from tests.helpers.accounts import (
    accounts_settings,
    create_team,
    fresh_client,
    invite_link,
    sign_in,
    users_cli,
)
from tests.helpers.html import HTML, one, soup_of, text_of

NEWCOMER = {"username": "carol", "password": "a long enough phrase"}
PRINTED_EXPIRY = re.compile(r"expires (\d{4}-\d\d-\d\d \d\d:\d\d UTC)")


# --- the CLI ------------------------------------------------------------------------------------


def _printed_link(stdout: str) -> str:
    """The link, the one line a script reading stdout gets."""
    (link,) = stdout.splitlines()
    assert "/invite/" in link
    return link


def _only_expiry(settings: Settings) -> datetime:
    app = create_app(settings)
    try:
        with app.state.db.read_sessions() as session:
            (expires,) = session.scalars(select(Invite.expires_at))
            return expires
    finally:
        app.state.db.dispose()


def test_the_cli_prints_the_role_and_expiry_and_warns_that_the_address_is_guessed(tmp_path: Path) -> None:
    settings = accounts_settings(tmp_path)
    made = users_cli(settings, "invite", "--role", "lead", "--expires-days", "3")
    assert made.returncode == 0, made.stderr
    assert _printed_link(made.stdout).startswith("http://127.0.0.1:8000/invite/")
    assert "role: Lead" in made.stderr
    expires = PRINTED_EXPIRY.search(made.stderr)
    assert expires is not None, made.stderr
    stored = _only_expiry(settings)
    assert expires[1] == stored.strftime("%Y-%m-%d %H:%M UTC")
    assert timedelta(days=3) - timedelta(minutes=2) < stored - utcnow() <= timedelta(days=3)
    # The address is a guess: the operator is told so, and how to say where the server listens.
    assert "PUBLIC_URL" in made.stderr and "--port" in made.stderr and "127.0.0.1:8000" in made.stderr


def test_the_cli_builds_the_link_on_the_port_it_is_given(tmp_path: Path) -> None:
    settings = accounts_settings(tmp_path)
    made = users_cli(settings, "invite", "--port", "9123")
    assert made.returncode == 0, made.stderr
    assert _printed_link(made.stdout).startswith("http://127.0.0.1:9123/invite/")
    assert "role: Member" in made.stderr
    assert "PUBLIC_URL" in made.stderr and "9123" in made.stderr


@pytest.mark.parametrize(
    ("public_url", "base"),
    [
        # compose.yaml builds PUBLIC_URL with its port, 443 included.
        ("https://cards.example.org:443", "https://cards.example.org/invite/"),
        ("https://cards.example.org:8443/", "https://cards.example.org:8443/invite/"),
        ("http://[2001:db8::7]:80", "http://[2001:db8::7]/invite/"),
    ],
)
def test_the_cli_link_leaves_out_only_the_scheme_s_own_port(
    tmp_path: Path, public_url: str, base: str
) -> None:
    made = users_cli(accounts_settings(tmp_path), "invite", env={"PUBLIC_URL": public_url})
    assert made.returncode == 0, made.stderr
    assert _printed_link(made.stdout).startswith(base)


def test_the_cli_link_on_public_url_needs_no_warning_and_opens_the_invite(tmp_path: Path) -> None:
    settings = accounts_settings(tmp_path)
    made = users_cli(settings, "invite", "--role", "author", env={"PUBLIC_URL": "https://cards.example.org/"})
    assert made.returncode == 0, made.stderr
    link = _printed_link(made.stdout)
    assert link.startswith("https://cards.example.org/invite/")
    assert "warning" not in made.stderr and "role: Author" in made.stderr
    app = create_app(settings)
    try:
        page = soup_of(fresh_client(app).get(link.removeprefix("https://cards.example.org")))
        assert "Author" in text_of(page, "main")
    finally:
        app.state.db.dispose()


@pytest.mark.parametrize("args", [["--port", "0"], ["--port", "70000"], ["--expires-days", "91"]])
def test_the_cli_refuses_what_no_invite_could_use_and_stores_nothing(tmp_path: Path, args: list[str]) -> None:
    settings = accounts_settings(tmp_path)
    made = users_cli(settings, "invite", *args)
    assert made.returncode != 0 and "/invite/" not in made.stdout
    app = create_app(settings)
    try:
        with app.state.db.read_sessions() as session:
            assert session.scalar(select(func.count()).select_from(Invite)) == 0
    finally:
        app.state.db.dispose()


# --- /admin/users -------------------------------------------------------------------------------


def pending(admin: TestClient) -> dict[str, Tag]:
    """The rows of the pending-invites table, by the link each one copies."""
    page = soup_of(admin.get("/admin/users"))
    rows = page.select("#pending-invites tbody tr")
    return {str(one(row, "input[readonly]")["value"]): row for row in rows}


def path_of(link: str) -> str:
    return "/" + link.split("/", 3)[3]


def revoke_action(row: Tag) -> str:
    return str(one(row, "form[action$='/revoke']")["action"])


def new_invite(admin: TestClient, role: str) -> tuple[str, str]:
    """A new invite's link, as the admin's page lists it, and the action of its Revoke form."""
    link = "http://testserver" + invite_link(admin, role=role)
    return link, revoke_action(pending(admin)[link])


def invite_state(app: FastAPI) -> list[tuple[str, bool, bool]]:
    """Every invite stored: its role, whether it was used, whether it was revoked."""
    with app.state.db.read_sessions() as session:
        rows = session.execute(
            select(Invite.role, Invite.used_at, Invite.revoked_at).order_by(Invite.created_at)
        )
        return [(role, used is not None, revoked is not None) for role, used, revoked in rows]


def audit_count(app: FastAPI) -> int:
    with app.state.db.read_sessions() as session:
        return int(session.scalar(select(func.count()).select_from(AuditEvent)) or 0)


def test_pending_invites_are_listed_with_role_expiry_and_a_link_that_copies(
    signed_in: Callable[[str], TestClient], team_app: FastAPI
) -> None:
    root = signed_in("root")
    lead_link = "http://testserver" + invite_link(root, role="lead", days="3")
    used_link = "http://testserver" + invite_link(root, role="member")
    stale_link = "http://testserver" + invite_link(root, role="author")
    assert fresh_client(team_app).post(path_of(used_link), data=NEWCOMER).status_code == 303
    with team_app.state.db.write_sessions() as session:
        session.execute(update(Invite).where(Invite.role == "author").values(expires_at=utcnow()))
        session.commit()

    rows = pending(root)
    assert list(rows) == [lead_link]  # neither the used one nor the expired one
    assert used_link not in rows and stale_link not in rows
    row = rows[lead_link]
    assert "Lead" in row.get_text(" ")
    with team_app.state.db.read_sessions() as session:
        expires = session.scalar(select(Invite.expires_at).where(Invite.role == "lead"))
    assert expires is not None and expires.strftime("%Y-%m-%d %H:%M UTC") in row.get_text(" ")
    # A real button copies the link the read-only field beside it holds (where the clipboard is
    # refused, the field is there to select).
    field = one(row, "input[readonly]")
    button = one(row, "button[type='button'][data-copy]")
    assert button["data-copy"] == field["id"]
    page = soup_of(root.get("/admin/users"))
    script = one(page, "script[src='/static/js/copy_link.js']")
    assert root.get(str(script["src"])).status_code == 200
    # The link the page hands out opens the invite.
    assert "Lead" in text_of(soup_of(fresh_client(team_app).get(path_of(lead_link))), "main")


def test_an_invite_made_at_the_command_line_is_listed_with_its_link(
    team_app: FastAPI, signed_in: Callable[[str], TestClient]
) -> None:
    settings: Settings = team_app.state.settings
    made = users_cli(settings, "invite", "--role", "lead", env={"PUBLIC_URL": "http://testserver"})
    assert made.returncode == 0, made.stderr
    assert list(pending(signed_in("root"))) == [_printed_link(made.stdout)]


def test_a_revoked_invite_is_gone_from_the_list_audited_and_signs_nobody_up(
    signed_in: Callable[[str], TestClient], team_app: FastAPI
) -> None:
    root = signed_in("root")
    link, action = new_invite(root, "lead")
    kept, _ = new_invite(root, "member")
    revoked = root.post(action)
    assert revoked.status_code == 200
    assert "Revoked" in text_of(soup_of(revoked), "[role='status']")
    assert list(pending(root)) == [kept]
    with team_app.state.db.read_sessions() as session:
        event = session.scalars(select(AuditEvent).where(AuditEvent.kind == "invite_revoked")).one()
        assert event.actor_id is not None and event.detail["role"] == "lead"
    assert "invite_revoked" in root.get("/admin/audit").text

    newcomer = fresh_client(team_app, headers=HTML)
    page = newcomer.get(path_of(link))
    assert page.status_code == 404
    assert "revoked" in text_of(soup_of(page, 404), "main")
    joined = newcomer.post(path_of(link), data=NEWCOMER)
    assert joined.status_code == 404 and "revoked" in text_of(soup_of(joined, 404), "main")
    assert newcomer.get("/api/me").status_code == 401
    assert "carol" not in root.get("/admin/users").text


def test_revoking_what_is_not_a_pending_invite_is_refused_and_changes_nothing(
    signed_in: Callable[[str], TestClient], team_app: FastAPI
) -> None:
    root = signed_in("root")
    used, action = new_invite(root, "member")
    assert fresh_client(team_app).post(path_of(used), data=NEWCOMER).status_code == 303
    _, second = new_invite(root, "author")
    assert root.post(second).status_code == 200
    before, events = invite_state(team_app), audit_count(team_app)

    refused = root.post(action, headers=HTML)
    assert refused.status_code == 409 and "used" in text_of(soup_of(refused, 409), ".errors")
    again = root.post(second, headers=HTML)
    assert again.status_code == 409 and "revoked" in text_of(soup_of(again, 409), ".errors")
    for invite_id in (secrets.token_hex(32), "0" * 64, "x", "A" * 64, "%00", "0" * 1000):
        response = root.post(f"/admin/invites/{invite_id}/revoke", headers=HTML)
        assert response.status_code == 404, invite_id
        assert "no invite" in text_of(soup_of(response, 404), "main").lower()
    assert invite_state(team_app) == before and audit_count(team_app) == events


def test_only_an_admin_in_a_browser_revokes_an_invite(
    signed_in: Callable[[str], TestClient], team_app: FastAPI
) -> None:
    root = signed_in("root")
    link, action = new_invite(root, "lead")
    alice = signed_in("alice")
    assert alice.post(action).status_code == 403
    assert fresh_client(team_app).post(action).status_code == 303  # to sign in
    no_csrf = TestClient(team_app, cookies=dict(root.cookies))
    assert no_csrf.post(action).status_code == 403
    tokens = root.post("/account/tokens", data={"name": "script", "password": "admin pass phrase 7"})
    token = text_of(soup_of(tokens), "code.token")
    assert TestClient(team_app).post(action, headers={"Authorization": f"Bearer {token}"}).status_code == 403
    assert invite_state(team_app) == [("lead", False, False)]
    assert list(pending(root)) == [link]


def _invite_form(page: Tag) -> tuple[str, str]:
    form = one(page, "form[action='/admin/invites']")
    return str(one(form, "select[name='role'] option[selected]")["value"]), str(
        one(form, "input[name='expires_days']")["value"]
    )


def test_the_invite_form_keeps_the_role_and_days_after_a_submit_or_a_refusal(
    signed_in: Callable[[str], TestClient],
) -> None:
    root = signed_in("root")
    made = soup_of(root.post("/admin/invites", data={"role": "lead", "expires_days": "3"}))
    assert _invite_form(made) == ("lead", "3")
    refused = soup_of(root.post("/admin/invites", data={"role": "author", "expires_days": "500"}), 422)
    assert _invite_form(refused) == ("author", "500")
    assert "90 days" in text_of(refused, ".errors")
    assert _invite_form(soup_of(root.get("/admin/users"))) == ("member", "7")


def test_an_invite_link_from_the_page_is_built_on_public_url(tmp_path: Path) -> None:
    app = create_app(accounts_settings(tmp_path, public_url="https://cards.example.org"))
    try:
        create_team(app)
        root = sign_in(fresh_client(app), "root")
        page = soup_of(root.post("/admin/invites", data={"role": "member", "expires_days": "7"}))
        assert text_of(page, "code.token").startswith("https://cards.example.org/invite/")
        assert next(iter(pending(root))).startswith("https://cards.example.org/invite/")
    finally:
        app.state.db.dispose()


def test_an_invite_made_before_links_were_kept_is_listed_without_a_link_and_can_be_revoked(
    signed_in: Callable[[str], TestClient], team_app: FastAPI
) -> None:
    with team_app.state.db.write_sessions() as session:
        now = utcnow()
        session.add(
            Invite(
                token_hash=secrets.token_hex(32),
                role="author",
                created_at=now,
                expires_at=now + timedelta(days=1),
            )
        )
        session.commit()
    root = signed_in("root")
    (row,) = soup_of(root.get("/admin/users")).select("#pending-invites tbody tr")
    assert "Author" in row.get_text(" ") and row.select("input[readonly], button[data-copy]") == []
    assert "invite again" in row.get_text(" ")
    assert root.post(revoke_action(row)).status_code == 200
    assert invite_state(team_app) == [("author", False, True)]
