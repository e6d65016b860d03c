"""Two `tiercards serve` replicas on one database: what one is told, the other knows; an edited
card shows on both within the poll interval; a first visit or an invite that reaches both at once
makes one person. On SQLite the two share a data folder; on Postgres (make test) a database."""

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from bs4 import BeautifulSoup

from app import PROJECT_ROOT
from tests.factories import OWNER_CARD
from tests.helpers.clients import csrf_client
from tests.helpers.payloads import attempt_payload
from tests.servers import data_env, start_server, stop

pytestmark = pytest.mark.load

SECRET = "replica-test-secret-key-that-is-long-enough"
POLL_S = 0.5


@dataclass
class Replicas:
    urls: tuple[str, str]
    env: dict[str, str]

    def cli(self, *args: str) -> str:
        """`tiercards …` on the replicas' data, as an operator on one of their hosts runs it."""
        done = subprocess.run(
            [sys.executable, "-m", "app.cli", *args],
            cwd=PROJECT_ROOT,
            env={**os.environ, **self.env},
            capture_output=True,
            text=True,
            check=True,
        )
        return done.stdout

    def names(self) -> list[str]:
        return [line.split("\t")[0] for line in self.cli("users", "list").splitlines()]


@pytest.fixture
def replicas(tmp_path: Path) -> Iterator[Callable[..., Replicas]]:
    """Starts two replicas with the given settings; both stop when the test ends."""
    processes: list[subprocess.Popen[bytes]] = []

    def start(**settings: str) -> Replicas:
        data = tmp_path / "data"
        env = {**data_env(data), "SECRET_KEY": SECRET, "CONTENT_POLL_SECONDS": str(POLL_S), **settings}
        urls = []
        for _ in range(2):
            process, url = start_server(data, "--no-worker", env=env)
            processes.append(process)
            urls.append(url)
        return Replicas((urls[0], urls[1]), env)

    yield start
    for process in processes:
        stop(process)


@pytest.fixture
def content(tmp_path: Path) -> Path:
    folder = tmp_path / "content"
    shutil.copytree(PROJECT_ROOT / "content", folder)
    return folder


def _title(url: str, path: str) -> str:
    page = httpx.get(url + path, timeout=10)
    assert page.status_code == 200
    heading = BeautifulSoup(page.text, "html.parser").select_one("h1")
    assert heading is not None
    return heading.get_text(" ", strip=True)


def test_an_answer_given_to_one_replica_is_in_the_others_history(
    replicas: Callable[..., Replicas],
) -> None:
    first, second = replicas().urls
    with closing(csrf_client(first)) as one, httpx.Client(base_url=second, timeout=30) as other:
        # The CSRF cookie one replica set is good on the other: they share the key.
        other.cookies.update(one.cookies)
        other.headers["X-CSRF-Token"] = one.headers["X-CSRF-Token"]
        stored = one.post(f"/api/cards/{OWNER_CARD}/attempts", json=attempt_payload(text="told to one"))
        assert stored.status_code == 201
        seen = other.get("/api/attempts", params={"card_id": OWNER_CARD}).json()
        assert [a["text"] for a in seen] == ["told to one"]
        again = other.post(
            f"/api/cards/{OWNER_CARD}/attempts", json=attempt_payload(text="told to the other")
        )
        assert again.status_code == 201


def test_an_edited_card_shows_on_every_replica_without_a_restart(
    replicas: Callable[..., Replicas], content: Path
) -> None:
    urls = replicas(CONTENT_DIR=str(content)).urls
    path = f"/cards/{OWNER_CARD}?tier=middle"
    for url in urls:  # rendered once, so each replica holds the page in its cache
        assert "prefetch" in _title(url, path)
    card = content / f"{OWNER_CARD}.md"
    text = card.read_text(encoding="utf-8")
    old_title = text.splitlines()[2]
    card.write_text(
        text.replace(old_title, 'title: "Where does prefetch go, and why last?"'), encoding="utf-8"
    )
    # Each replica's poller notices the edit after POLL_S; the deadline only keeps a replica that
    # never notices from hanging the test (a busy machine may take several intervals).
    deadline = time.monotonic() + 60
    pending = set(urls)
    while pending and time.monotonic() < deadline:
        pending = {url for url in pending if "and why last" not in _title(url, path)}
        time.sleep(0.05)
    assert not pending, "a replica kept serving the old card"


def test_a_first_visit_that_reaches_both_replicas_at_once_makes_one_person(
    replicas: Callable[..., Replicas],
) -> None:
    two = replicas(AUTH_MODE="proxy", TRUSTED_PROXIES="127.0.0.1")

    def me(index: int) -> httpx.Response:
        return httpx.get(two.urls[index % 2] + "/api/me", headers={"Remote-User": "newcomer"}, timeout=30)

    with ThreadPoolExecutor(16) as pool:
        answers = list(pool.map(me, range(32)))
    assert [a.status_code for a in answers] == [200] * 32
    assert {a.json()["name"] for a in answers} == {"newcomer"}
    assert two.names().count("newcomer") == 1


def test_an_invite_sent_to_both_replicas_at_once_makes_one_account(
    replicas: Callable[..., Replicas],
) -> None:
    two = replicas(AUTH_MODE="accounts")
    link = two.cli("users", "invite").strip()
    path = "/invite/" + link.rsplit("/invite/", 1)[1]

    def redeem(index: int) -> int:
        with closing(csrf_client(two.urls[index % 2])) as client:
            form = {"username": f"joiner{index}", "password": f"a long enough phrase {index}"}
            return client.post(path, data=form, follow_redirects=False).status_code

    with ThreadPoolExecutor(6) as pool:
        statuses = list(pool.map(redeem, range(6)))
    assert sorted(statuses) == [303] + [404] * 5
    assert len([name for name in two.names() if name.startswith("joiner")]) == 1
