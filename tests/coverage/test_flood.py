"""Floods of coverage checks against a real server: however many long checks one person sends at
once, or as many people do, another person's card read stays quick. Unbounded, eight
20,000-character checks at once took that read from a few milliseconds to over half a second on a
2-core machine: the checks shared the web process's threads and its GIL with every page."""

import itertools
import statistics
import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
from sqlalchemy.orm import Session

from app.accounts import passwords, service
from app.coverage.checker import model_answer
from app.schemas import MAX_ANSWER_CHARS
from tests.factories import DECK, OWNER_CARD
from tests.helpers.accounts import sign_in
from tests.helpers.clients import csrf_client
from tests.servers import running_server
from tests.services import engine_for

pytestmark = pytest.mark.load

FLOOD = 8
READS = 9
# Generous: an idle read takes a few milliseconds, and one under the unbounded flood took longer
# than this on every run.
READ_BOUND_S = 0.3
# The card's own words, one a line, as long as an answer may be: each line is a stretch the checker
# scores, so this is about the slowest answer of that length to check (some 0.3 s on 2 cores).
LONG_ANSWER = "\n".join(
    itertools.islice(itertools.cycle(model_answer(DECK[OWNER_CARD]).split()), MAX_ANSWER_CHARS)
)[:MAX_ANSWER_CHARS].strip()
PASSWORD = "a flood of checks 12"
FLOODERS = [f"flooder{i}" for i in range(FLOOD)]
ENV = {
    "AUTH_MODE": "accounts",
    "SECRET_KEY": "test-only-secret-key-that-is-long-enough",
    # Out of the way: these tests are about the checks at once, not how many a minute.
    "COVERAGE_CHECKS_PER_MINUTE": "100000",
}


def add_people(data_dir: Path, names: list[str]) -> None:
    hashed = passwords.hash_password(PASSWORD)  # once: argon2 takes a good part of a second
    with Session(engine_for(data_dir)) as session:
        for name in names:
            service.create_user(session, name=name, role="member", password_hash=hashed)
        session.commit()


def signed_in(url: str, name: str) -> httpx.Client:
    return sign_in(csrf_client(url, page="/login", timeout=120), name, PASSWORD)


def same_browser(client: httpx.Client) -> httpx.Client:
    """Another client with `client`'s sign-in and CSRF token: one for each thread."""
    return httpx.Client(base_url=client.base_url, timeout=120, cookies=client.cookies, headers=client.headers)


def read_seconds(client: httpx.Client) -> float:
    start = time.perf_counter()
    response = client.get(f"/api/cards/{OWNER_CARD}")
    seconds = time.perf_counter() - start
    assert response.status_code == 200 and response.json()["id"] == OWNER_CARD
    return seconds


@contextmanager
def flooding(senders: list[httpx.Client]) -> Iterator[Counter[int]]:
    """A check of LONG_ANSWER from each of `senders` at once, each sent again as soon as it is
    answered, until the block ends; yields the statuses they got once the first are on their way.
    A refused one is sent again once its Retry-After has passed: requests sent faster than the
    server answers them, of whatever kind, are a flood for the proxy in front to limit."""
    statuses: Counter[int] = Counter()
    errors: list[BaseException] = []
    stop = threading.Event()
    lock = threading.Lock()

    def keep_checking(sender: httpx.Client) -> None:
        body = {"tier": "middle", "text": LONG_ANSWER}
        try:
            while not stop.is_set():
                response = sender.post(f"/api/cards/{OWNER_CARD}/coverage", json=body)
                with lock:
                    statuses[response.status_code] += 1
                if response.status_code == 429:
                    stop.wait(float(response.headers["Retry-After"]))
        except Exception as error:  # reported by the test, not lost in this thread
            errors.append(error)

    threads = [threading.Thread(target=keep_checking, args=(sender,)) for sender in senders]
    for thread in threads:
        thread.start()
    try:
        time.sleep(0.5)  # long enough for the checks to reach the server and start
        yield statuses
    finally:
        stop.set()
        for thread in threads:
            thread.join()
    assert errors == []


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server of its own (its start takes seconds), with a reader and FLOOD people to flood it."""
    data_dir = tmp_path_factory.mktemp("flood")
    with running_server(data_dir, "--no-worker", env=ENV) as url:
        add_people(data_dir, ["reader", *FLOODERS])
        yield url


@pytest.mark.parametrize("people", [1, FLOOD], ids=["one person", "as many people"])
def test_a_flood_of_long_checks_leaves_another_persons_card_reads_quick(server: str, people: int) -> None:
    reader = signed_in(server, "reader")
    browsers = [signed_in(server, name) for name in FLOODERS[:people]]
    senders = [same_browser(browsers[i % people]) for i in range(FLOOD)]
    try:
        for _ in range(3):
            read_seconds(reader)  # the card's JSON, warmed
        with flooding(senders) as statuses:
            reads = [read_seconds(reader) for _ in range(READS)]
    finally:
        for client in (reader, *browsers, *senders):
            client.close()
    median = statistics.median(reads)
    assert median < READ_BOUND_S, f"median {median * 1000:.0f} ms: {[round(s * 1000) for s in reads]}"
    # The flood was real: checks were answered, and those refused said so with a 429.
    assert statuses[200] >= 1 and set(statuses) <= {200, 429}, statuses
