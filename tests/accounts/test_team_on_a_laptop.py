"""Team mode tried on a laptop: a real `tiercards serve` in accounts mode over plain http on
127.0.0.1, the first admin and an invite from the CLI, as an operator would run them."""

from pathlib import Path

import httpx

from tests.helpers.accounts import accounts_settings, sign_in, users_cli
from tests.helpers.clients import CSRF_HEADER, csrf_client, token_in
from tests.helpers.html import soup_of, text_of
from tests.servers import free_port, start_server, stop

ADMIN_PASSWORD = "a sturdy admin phrase"
NEWCOMER = {"username": "carol", "password": "a long enough phrase"}


def test_the_laptop_recipe_signs_up_an_invited_lead_over_plain_http(tmp_path: Path) -> None:
    settings = accounts_settings(tmp_path / "data")
    added = users_cli(
        settings, "add", "ada", "--role", "admin", "--password-stdin", stdin=ADMIN_PASSWORD + "\n"
    )
    assert added.returncode == 0, added.stderr
    port = free_port()
    made = users_cli(settings, "invite", "--role", "lead", "--port", str(port))
    assert made.returncode == 0, made.stderr
    link = made.stdout.strip()
    assert link.startswith(f"http://127.0.0.1:{port}/invite/")

    env = {"AUTH_MODE": "accounts", "SECRET_KEY": settings.secret_key}
    process, url = start_server(settings.data_dir, "--no-worker", env=env, port=port)
    try:
        with httpx.Client(timeout=30) as newcomer:
            invite = newcomer.get(link)
            assert "Lead" in text_of(soup_of(invite), "main")
            joined = newcomer.post(
                link, data=NEWCOMER, headers={CSRF_HEADER: token_in(invite.text)}, follow_redirects=False
            )
            assert joined.status_code == 303, joined.text
            # Over plain http a browser keeps only cookies that are not Secure.
            assert "secure" not in joined.headers["set-cookie"].lower()
            assert newcomer.get(f"{url}/api/me").json() == {"name": "carol", "role": "lead"}
            nav = soup_of(newcomer.get(f"{url}/")).select("header.site nav a")
            assert "Team" in [a.get_text(strip=True) for a in nav]
        admin = sign_in(csrf_client(url, page="/login", follow_redirects=False), "ada", ADMIN_PASSWORD)
        assert "carol" in text_of(soup_of(admin.get("/admin/users")), "main")
        admin.close()
    finally:
        stop(process)
