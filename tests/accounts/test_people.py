"""People and their names and roles against hostile members and identity providers: the solo
history of single mode is nobody's account, reserved and look-alike names are refused, the
identity provider is authoritative for mapped roles, and the last admin stays even when two
admins change each other at the same moment."""

import contextlib
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from urllib.parse import quote

import pytest
from bs4 import BeautifulSoup
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import event, func, select
from sqlalchemy.orm import Session

from app.accounts import passwords, service
from app.accounts.models import LOCAL_USER_ID, User
from app.factory import create_app
from tests.helpers.accounts import accounts_settings, fresh_client, invite_link, new_person

PROXY = ("192.0.2.10", 4000)
ADA_PASSWORD = "second admin pass phrase 9"


def names_in(app: FastAPI) -> set[str]:
    with app.state.db.read_sessions() as session:
        return set(session.scalars(select(User.name)))


def role_of(app: FastAPI, name: str) -> tuple[str, bool]:
    with app.state.db.read_sessions() as session:
        user = session.scalar(select(User).where(User.name == name))
        assert user is not None
        return user.role, user.disabled


def listed_on_users_page(client: TestClient) -> list[str]:
    page = BeautifulSoup(client.get("/admin/users").text, "html.parser")
    return [row.select_one("td").get_text(strip=True) for row in page.select("table.data tbody tr")]


@pytest.fixture
def proxy_app(tmp_path: Path) -> Iterator[FastAPI]:
    app = create_app(
        accounts_settings(
            tmp_path, auth_mode="proxy", trusted_proxies="192.0.2.10/32", group_roles="tc-admins=admin"
        )
    )
    yield app
    app.state.db.dispose()


# --- the solo history of single mode is not an account ------------------------------------------


@pytest.mark.parametrize("name", ["local", "admin", "root", "system", "Admin", "LOCAL"])
def test_a_proxy_cannot_name_the_solo_history_or_a_reserved_name(proxy_app: FastAPI, name: str) -> None:
    before = names_in(proxy_app)
    with TestClient(proxy_app, client=PROXY) as client:
        assert client.get("/api/me", headers={"Remote-User": name}).status_code == 401
        assert client.get("/admin/users", headers={"Remote-User": name}).status_code == 401
    assert names_in(proxy_app) == before


def test_the_solo_history_is_no_account_to_sign_in_as(team_app: FastAPI) -> None:
    # Someone gave single mode's person a password and an API token before switching to accounts.
    with team_app.state.db.write_sessions() as session:
        local = session.get(User, LOCAL_USER_ID)
        assert local is not None
        local.password_hash = passwords.hash_password("the solo pass phrase 3")
        token = service.create_token(session, user_id=local.id, name="from single mode")
        session.commit()
    client = fresh_client(team_app)
    refused = client.post("/login", data={"username": "local", "password": "the solo pass phrase 3"})
    assert refused.status_code == 401
    assert client.get("/api/me").status_code == 401
    script = TestClient(team_app)
    assert script.get("/api/me", headers={"Authorization": f"Bearer {token}"}).status_code == 401


@pytest.mark.parametrize(
    ("name", "says"),
    [
        *((reserved, "reserved") for reserved in ("local", "admin", "root", "Admin", "system", "r00t")),
        ("Alice", "too like 'alice'"),
        ("ALICE", "too like 'alice'"),
        ("a1ice", "too like 'alice'"),
        ("AIice", "too like 'alice'"),  # a capital I, not an l
        ("Iocal", "reserved"),
        ("ADMlN", "reserved"),
        ("\uff41\uff4c\uff49\uff43\uff45", "a name is"),  # fullwidth
        ("\u0430lice", "a name is"),  # a Cyrillic a
    ],
)
def test_an_invite_cannot_take_a_reserved_or_look_alike_name(
    signed_in: Callable[[str], TestClient], team_app: FastAPI, name: str, says: str
) -> None:
    link = invite_link(signed_in("root"))
    before = names_in(team_app)
    response = fresh_client(team_app).post(link, data={"username": name, "password": "a long enough phrase"})
    assert response.status_code == 422
    assert says in BeautifulSoup(response.text, "html.parser").select_one(".errors").text
    assert names_in(team_app) == before


def test_the_solo_history_is_not_listed_and_never_counts_as_an_admin(
    signed_in: Callable[[str], TestClient], team_app: FastAPI
) -> None:
    with team_app.state.db.write_sessions() as session:
        local = session.get(User, LOCAL_USER_ID)
        assert local is not None
        local.password_hash = passwords.hash_password("the solo pass phrase 3")
        session.commit()
    root = signed_in("root")
    assert listed_on_users_page(root) == ["alice", "bob", "root"]
    team = BeautifulSoup(root.get("/team").text, "html.parser")
    assert [row["data-member"] for row in team.select("tr.member")] == ["alice", "bob", "root"]
    refused = root.post("/admin/users/root", data={"role": "member"})
    assert refused.status_code == 409 and "no active admin" in refused.text
    assert role_of(team_app, "root") == ("admin", False)
    assert root.post("/admin/users/local", data={"role": "member"}).status_code == 404


def test_an_identity_provider_subject_never_signs_in_as_the_solo_history(team_app: FastAPI) -> None:
    with team_app.state.db.write_sessions() as session:
        local = session.get(User, LOCAL_USER_ID)
        assert local is not None
        local.oidc_subject = "https://sso.example.org|local"
        session.flush()
        person = service.oidc_user(
            session, subject="https://sso.example.org|local", wanted_name="local", role="admin"
        )
        assert person.id != LOCAL_USER_ID and person.name == "local-2"


# --- the identity provider is authoritative for mapped roles -------------------------------------


def test_without_group_roles_a_proxy_keeps_the_stored_role(tmp_path: Path) -> None:
    app = create_app(accounts_settings(tmp_path, auth_mode="proxy", trusted_proxies="192.0.2.10/32"))
    with app.state.db.write_sessions() as session:
        service.create_user(session, name="gail", role="lead")
        session.commit()
    with TestClient(app, client=PROXY) as client:
        assert client.get("/api/me", headers={"Remote-User": "gail"}).json() == {
            "name": "gail",
            "role": "lead",
        }
    app.state.db.dispose()


# --- the last admin stays, also when two admins change each other at once ------------------------


def _pause_role_changes(barrier: threading.Barrier) -> Callable[[], None]:
    """Hold every transaction that changed a person at its commit until the other one gets there
    too (or a few seconds pass): the moment two admins' changes overlap."""
    changed: set[int] = set()

    def flushed(session: Session, _context: object) -> None:
        if any(isinstance(o, User) for o in session.dirty):
            changed.add(id(session))

    def committing(session: Session) -> None:
        if id(session) in changed:
            changed.discard(id(session))
            # Broken: the other one is waiting for this one's lock, so this one goes on alone.
            with contextlib.suppress(threading.BrokenBarrierError):
                barrier.wait(timeout=3)

    event.listen(Session, "after_flush", flushed)
    event.listen(Session, "before_commit", committing)

    def stop() -> None:
        event.remove(Session, "after_flush", flushed)
        event.remove(Session, "before_commit", committing)

    return stop


def _from_the_cli(app: FastAPI, target: str, form: dict[str, str]) -> int:
    """What `tiercards users set-role` / `disable` does, as a status: 200 done, 409 refused."""
    disabled = form["disabled"] == "true" if "disabled" in form else None
    with app.state.db.write_sessions() as session:
        try:
            service.change_person(session, name=target, role=form.get("role"), disabled=disabled, via="cli")
        except service.Conflict:
            return 409
        session.commit()
    return 200


@pytest.mark.parametrize(
    ("first", "second", "second_from_the_cli"),
    [
        ({"role": "member"}, {"role": "member"}, False),
        ({"disabled": "true"}, {"role": "lead"}, False),
        ({"role": "member"}, {"disabled": "true"}, True),
    ],
    ids=["both-demote", "disable-and-demote", "web-and-cli"],
)
def test_two_admins_changing_each_other_at_once_leave_one_admin(
    signed_in: Callable[[str], TestClient],
    team_app: FastAPI,
    first: dict[str, str],
    second: dict[str, str],
    second_from_the_cli: bool,
) -> None:
    root = signed_in("root")
    with new_person(team_app, "ada", "admin", ADA_PASSWORD) as ada:
        answers: dict[str, int] = {}

        def on_the_web(client: TestClient, target: str, form: dict[str, str]) -> None:
            answers[target] = client.post(f"/admin/users/{target}", data=form).status_code

        def at_the_cli(_client: TestClient, target: str, form: dict[str, str]) -> None:
            answers[target] = _from_the_cli(team_app, target, form)

        stop = _pause_role_changes(threading.Barrier(2))
        try:
            threads = [
                threading.Thread(target=on_the_web, args=(root, "ada", first)),
                threading.Thread(
                    target=at_the_cli if second_from_the_cli else on_the_web, args=(ada, "root", second)
                ),
            ]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(timeout=30)
        finally:
            stop()
    assert sorted(answers.values()) == [200, 409]
    with team_app.state.db.read_sessions() as session:
        assert service.admins_left(session) == 1


def test_the_cli_never_takes_the_last_admin_away(team_app: FastAPI) -> None:
    for change in ({"role": "member"}, {"disabled": True}):
        with (
            team_app.state.db.write_sessions() as session,
            pytest.raises(service.Conflict, match="no active admin"),
        ):
            service.change_person(session, name="root", via="cli", **change)  # type: ignore[arg-type]
    assert role_of(team_app, "root") == ("admin", False)


# --- names: unique regardless of case, compatibility forms and look-alike letters -----------------


def test_a_proxy_cannot_bring_in_a_look_alike_of_someone(proxy_app: FastAPI) -> None:
    with TestClient(proxy_app, client=PROXY) as client:
        assert client.get("/api/me", headers={"Remote-User": "carol"}).json()["name"] == "carol"
        for look_alike in ("Carol", "CAROL", "caro1"):
            assert client.get("/api/me", headers={"Remote-User": look_alike}).status_code == 401
    with proxy_app.state.db.read_sessions() as session:
        assert (
            int(session.scalar(select(func.count()).select_from(User).where(User.name != "local")) or 0) == 1
        )


def test_the_cli_may_name_the_first_admin_anything_but_the_solo_history(team_app: FastAPI) -> None:
    with team_app.state.db.write_sessions() as session:
        assert service.create_user(session, name="admin", role="admin", by_operator=True).name == "admin"
        with pytest.raises(service.Invalid, match="solo history"):
            service.create_user(session, name="local", role="admin", by_operator=True)
        with pytest.raises(service.Conflict, match="admin"):
            service.create_user(session, name="Admin", role="admin", by_operator=True)


def test_single_mode_makes_tokens_even_when_the_solo_history_kept_a_password(tmp_path: Path) -> None:
    app = create_app(accounts_settings(tmp_path, auth_mode="single"))
    with app.state.db.write_sessions() as session:
        local = session.get(User, LOCAL_USER_ID)
        assert local is not None
        local.password_hash = passwords.hash_password("the solo pass phrase 3")
        session.commit()
    with fresh_client(app) as client:
        account = BeautifulSoup(client.get("/account").text, "html.parser")
        assert account.select_one("input[name=password]") is None  # nobody to ask a password of
        page = client.post("/account/tokens", data={"name": "my script"})
        assert page.status_code == 200, page.text
        token = BeautifulSoup(page.text, "html.parser").select_one("code.token").text
        assert client.get("/api/me", headers={"Authorization": f"Bearer {token}"}).status_code == 200
    app.state.db.dispose()


@pytest.mark.parametrize("name", ["al\x00ice", "a b", "\u0430lice", "x" * 81])
def test_a_name_nobody_can_have_finds_nobody(
    signed_in: Callable[[str], TestClient], team_app: FastAPI, name: str
) -> None:
    root = signed_in("root")
    quoted = quote(name, safe="")
    assert root.get(f"/team/members/{quoted}").status_code == 404
    changed = root.post(f"/admin/users/{quoted}", data={"role": "admin"})
    assert changed.status_code == 404
    assert "no user named" in changed.text
