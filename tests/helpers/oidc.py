"""A real OpenID provider (panva's oidc-provider, OpenID-certified, on Node.js) for the sign-in
tests, and a browser's way through its login and consent pages back to tiercards."""

import json
import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

import httpx
import pytest
from bs4 import BeautifulSoup

from app import PROJECT_ROOT
from tests.servers import free_port

PROVIDER_DIR = PROJECT_ROOT / "tests" / "accounts" / "oidc_provider"
INSTALL = PROJECT_ROOT / "scripts" / "install-npm-packages.sh"
CLIENT_ID = "tiercards"
CLIENT_SECRET = "test-client-secret-that-is-long-enough"
REDIRECT_URI = "http://testserver/auth/oidc/callback"
# The provider's people. Dave would like to be called "alice", a name a local account already has.
PEOPLE: dict[str, dict[str, Any]] = {
    "carol": {"password": "carol at the provider 1", "groups": ["staff", "team-leads"]},
    "dave": {"password": "dave at the provider 2", "groups": ["staff"], "preferred_username": "alice"},
}


@dataclass
class OpenIdProvider:
    url: str
    accounts_file: Path

    def set_people(self, people: dict[str, dict[str, Any]]) -> None:
        self.accounts_file.write_text(json.dumps(people))

    def set_groups(self, login: str, groups: list[str]) -> None:
        self.set_people({**PEOPLE, login: {**PEOPLE[login], "groups": groups}})


def _install_provider() -> None:
    if (PROVIDER_DIR / "node_modules" / "oidc-provider").is_dir():
        return
    done = subprocess.run(["bash", str(INSTALL)], capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        pytest.fail(f"{INSTALL.name} failed:\n{done.stdout}\n{done.stderr}")


def _wait_for_discovery(process: subprocess.Popen[bytes], url: str, log: Path) -> None:
    for _ in range(150):
        if process.poll() is not None:
            pytest.fail(f"the OpenID provider exited with {process.returncode}:\n{log.read_text()}")
        try:
            if httpx.get(f"{url}/.well-known/openid-configuration", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    pytest.fail(f"the OpenID provider did not answer within 30 s:\n{log.read_text()}")


@contextmanager
def running_provider(tmp_path_factory: pytest.TempPathFactory) -> Iterator[OpenIdProvider]:
    """panva's oidc-provider on Node.js, started from tests/accounts/oidc_provider, serving PEOPLE."""
    if shutil.which("node") is None:
        pytest.fail("the OIDC tests need Node.js (node) to run their OpenID provider")
    _install_provider()
    folder = tmp_path_factory.mktemp("oidc_provider")
    port = free_port()
    found = OpenIdProvider(f"http://127.0.0.1:{port}", folder / "accounts.json")
    found.set_people(PEOPLE)
    env = {
        **os.environ,
        "OIDC_PORT": str(port),
        "OIDC_ACCOUNTS_FILE": str(found.accounts_file),
        "OIDC_CLIENT_ID": CLIENT_ID,
        "OIDC_CLIENT_SECRET": CLIENT_SECRET,
        "OIDC_REDIRECT_URI": REDIRECT_URI,
    }
    log = folder / "provider.log"
    with log.open("wb") as output:
        process = subprocess.Popen(
            ["node", "provider.js"], cwd=PROVIDER_DIR, env=env, stdout=output, stderr=subprocess.STDOUT
        )
    try:
        _wait_for_discovery(process, found.url, log)
        yield found
    finally:
        process.terminate()
        process.wait(timeout=10)


def _answer_page(browser: httpx.Client, page: httpx.Response, login: str, password: str) -> httpx.Response:
    """Fill in the provider's login form, or consent on its consent page."""
    assert page.status_code == 200, page.text
    form = BeautifulSoup(page.text, "html.parser").find("form")
    assert form is not None, page.text
    fields = {
        str(field["name"]): str(field.get("value", ""))
        for field in form.find_all("input")
        if field.get("name")
    }
    if fields.get("prompt") == "login":
        fields.update(login=login, password=password)
    return browser.post(urljoin(str(page.url), str(form["action"])), data=fields)


def to_callback(browser: httpx.Client, url: str, login: str, password: str, abort: bool = False) -> str:
    """Follow the provider's pages from `url` until it sends the browser back to tiercards; with
    `abort`, sign in but then cancel instead of consenting."""
    response = browser.get(url)
    for _ in range(12):
        if response.is_redirect:
            url = urljoin(str(response.url), response.headers["location"])
            if url.startswith(REDIRECT_URI):
                return url
            response = browser.get(url)
        elif abort and 'name="prompt" value="consent"' in response.text:
            cancel = BeautifulSoup(response.text, "html.parser").select_one('a[href$="/abort"]')
            assert cancel is not None, response.text
            response = browser.get(urljoin(str(response.url), str(cancel["href"])))
        else:
            response = _answer_page(browser, response, login, password)
    raise AssertionError(f"the provider never sent the browser back: {response.status_code} {response.text}")
