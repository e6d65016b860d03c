"""The API docs page: it says how a client authenticates, in the words of the server's sign-in
mode, and runs no inline script (the Content-Security-Policy forbids it)."""

from pathlib import Path

from bs4 import BeautifulSoup, Tag
from fastapi.testclient import TestClient

from app.factory import create_app
from tests.helpers.accounts import accounts_settings


def _auth_help(page_html: str) -> Tag:
    soup = BeautifulSoup(page_html, "html.parser")
    assert all(script.get("src") for script in soup.find_all("script")), "an inline script"
    section = soup.select_one("#api-auth")
    assert section is not None
    return section


def test_one_user_mode_names_the_csrf_cookie_and_header(client: TestClient) -> None:
    section = _auth_help(client.get("/docs").text)
    text = section.get_text(" ", strip=True)
    assert "tiercards_csrf" in text and "X-CSRF-Token" in text
    # One user and no sign-in: tokens are not how scripts get in here, and the page says so.
    assert "AUTH_MODE=accounts" in text


def test_with_accounts_scripts_are_sent_to_their_api_tokens(tmp_path: Path) -> None:
    app = create_app(accounts_settings(tmp_path))
    try:
        with TestClient(app) as client:
            response = client.get("/docs")  # readable before signing in
            assert response.status_code == 200
            section = _auth_help(response.text)
    finally:
        app.state.db.dispose()
    text = section.get_text(" ", strip=True)
    assert "Authorization: Bearer" in text and "X-CSRF-Token" in text
    assert "AUTH_MODE" not in text
    links = [a["href"] for a in section.select("a[href]")]
    assert "/account#tokens-heading" in links
