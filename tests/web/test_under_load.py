"""A real server under the load and the faults people put it through.

- 20 clients each answering and reading their history in a loop: every request succeeds (the
  server used to freeze when its connection pool ran dry, then answer 500 once the pool's wait ran
  out). How long requests take under load is bench/mixed_load.py's figure, not a test's.
- The server killed with SIGKILL while 20 writers post, three times over: every answer that got a
  201 is still there after a restart.
"""

import os
import signal
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest

from tests.factories import OWNER_CARD
from tests.helpers.clients import csrf_client
from tests.helpers.payloads import attempt_payload
from tests.servers import free_port, start_server, stop

pytestmark = pytest.mark.load

CLIENTS = 20
ATTEMPTS = f"/api/cards/{OWNER_CARD}/attempts"


@dataclass
class Tally:
    errors: list[str] = field(default_factory=list)
    acknowledged: list[int] = field(default_factory=list)
    requests: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def record(self, error: str | None = None, attempt_id: int | None = None) -> None:
        with self.lock:
            self.requests += 1
            if error:
                self.errors.append(error)
            if attempt_id is not None:
                self.acknowledged.append(attempt_id)


def _mixed_loop(url: str, rounds: int, tally: Tally, stop_on_error: bool = False) -> None:
    try:
        client = csrf_client(url)
    except httpx.HTTPError as error:
        tally.record(f"first GET: {type(error).__name__}")
        return
    try:
        for _ in range(rounds):
            for method, path, body in (
                ("POST", ATTEMPTS, attempt_payload()),
                ("GET", f"/api/attempts?card_id={OWNER_CARD}&limit=5", None),
            ):
                try:
                    response = client.request(method, path, json=body)
                except httpx.HTTPError as error:
                    tally.record(f"{method} {path}: {type(error).__name__}")
                    if stop_on_error:
                        return
                    continue
                ok = response.status_code == (201 if method == "POST" else 200)
                attempt_id = response.json()["id"] if ok and method == "POST" else None
                tally.record(None if ok else f"{method} {path}: {response.status_code}", attempt_id)
    finally:
        client.close()


def _run_clients(
    url: str, rounds: int, stop_on_error: bool = False, tally: Tally | None = None, clients: int = CLIENTS
) -> Tally:
    """`clients` at once, each answering and reading its history `rounds` times."""
    tally = tally or Tally()
    threads = [
        threading.Thread(target=_mixed_loop, args=(url, rounds, tally, stop_on_error)) for _ in range(clients)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return tally


def test_twenty_clients_writing_and_reading_never_stall(tmp_path: Path) -> None:
    process, url = start_server(tmp_path, "--no-worker")
    try:
        tally = _run_clients(url, rounds=10)
    finally:
        stop(process)
    assert tally.errors == []
    assert tally.requests == CLIENTS * 10 * 2


def test_a_hundred_clients_get_no_errors(tmp_path: Path) -> None:
    """More clients than the server has threads: none may wait on a thread while holding a
    database connection (that once ran the pool dry and answered 500)."""
    process, url = start_server(tmp_path, "--no-worker")
    try:
        tally = _run_clients(url, rounds=2, clients=100)
    finally:
        stop(process)
    assert tally.errors == []
    assert tally.requests == 100 * 2 * 2


def _kill_after(pid: int, tally: Tally, answers: int) -> None:
    deadline = time.monotonic() + 60
    while len(tally.acknowledged) < answers and time.monotonic() < deadline:
        time.sleep(0.01)
    os.kill(pid, signal.SIGKILL)


def test_acknowledged_answers_survive_kill_9_of_the_server(tmp_path: Path) -> None:
    port = free_port()
    acknowledged: list[int] = []
    for _round in range(3):
        process, url = start_server(tmp_path, "--no-worker", port=port)
        tally = Tally()
        # Killed mid-load: once the writers have had some answers acknowledged, whatever the
        # machine's speed.
        killer = threading.Thread(target=_kill_after, args=(process.pid, tally, 40))
        killer.start()
        # More rounds than the writers get through before the kill.
        _run_clients(url, rounds=1000, stop_on_error=True, tally=tally)
        killer.join()
        process.wait(timeout=15)
        assert process.returncode == -signal.SIGKILL
        acknowledged += tally.acknowledged
    process, url = start_server(tmp_path, "--no-worker", port=port)
    try:
        stored = {a["id"] for a in httpx.get(f"{url}/api/attempts?limit=1000").json()}
    finally:
        stop(process)
    assert set(acknowledged) <= stored
