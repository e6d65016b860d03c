"""A real server under the load and the faults people put it through.

- 20 clients each answering and reading their history in a loop: every request succeeds and none
  waits long (the server used to freeze for 30 s when its connection pool ran dry).
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

from tests.factories import OWNER_CARD
from tests.helpers.clients import csrf_client
from tests.helpers.payloads import attempt_payload
from tests.servers import free_port, start_server

CLIENTS = 20
ATTEMPTS = f"/api/cards/{OWNER_CARD}/attempts"


@dataclass
class Tally:
    errors: list[str] = field(default_factory=list)
    slowest: float = 0.0
    acknowledged: list[int] = field(default_factory=list)
    requests: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def record(self, seconds: float, error: str | None = None, attempt_id: int | None = None) -> None:
        with self.lock:
            self.requests += 1
            self.slowest = max(self.slowest, seconds)
            if error:
                self.errors.append(error)
            if attempt_id is not None:
                self.acknowledged.append(attempt_id)


def _mixed_loop(url: str, until: float, tally: Tally, stop_on_error: bool = False) -> None:
    try:
        client = csrf_client(url)
    except httpx.HTTPError as error:
        tally.record(0.0, f"first GET: {type(error).__name__}")
        return
    try:
        while time.monotonic() < until:
            for method, path, body in (
                ("POST", ATTEMPTS, attempt_payload()),
                ("GET", f"/api/attempts?card_id={OWNER_CARD}&limit=5", None),
            ):
                start = time.monotonic()
                try:
                    response = client.request(method, path, json=body)
                except httpx.HTTPError as error:
                    tally.record(time.monotonic() - start, f"{method} {path}: {type(error).__name__}")
                    if stop_on_error:
                        return
                    continue
                elapsed = time.monotonic() - start
                ok = response.status_code == (201 if method == "POST" else 200)
                attempt_id = response.json()["id"] if ok and method == "POST" else None
                tally.record(elapsed, None if ok else f"{method} {path}: {response.status_code}", attempt_id)
    finally:
        client.close()


def _run_clients(
    url: str, seconds: float, stop_on_error: bool = False, tally: Tally | None = None, clients: int = CLIENTS
) -> Tally:
    tally = tally or Tally()
    until = time.monotonic() + seconds
    threads = [
        threading.Thread(target=_mixed_loop, args=(url, until, tally, stop_on_error)) for _ in range(clients)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=seconds + 60)
    return tally


def test_twenty_clients_writing_and_reading_never_stall(tmp_path: Path) -> None:
    process, url = start_server(tmp_path, "--no-worker")
    try:
        tally = _run_clients(url, seconds=8)
    finally:
        process.terminate()
        process.wait(timeout=15)
    assert tally.errors == []
    assert tally.requests > 100
    assert tally.slowest < 2.0, f"slowest request took {tally.slowest:.1f} s"


def test_a_hundred_clients_get_no_errors(tmp_path: Path) -> None:
    """More clients than the server has threads: none may wait on a thread while holding a
    database connection (that once ran the pool dry and answered 500)."""
    process, url = start_server(tmp_path, "--no-worker")
    try:
        tally = _run_clients(url, seconds=8, clients=100)
    finally:
        process.terminate()
        process.wait(timeout=15)
    assert tally.errors == []
    assert tally.requests > 100


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
        _run_clients(url, seconds=60, stop_on_error=True, tally=tally)
        killer.join()
        process.wait(timeout=15)
        assert process.returncode == -signal.SIGKILL
        acknowledged += tally.acknowledged
    process, url = start_server(tmp_path, "--no-worker", port=port)
    try:
        stored = {a["id"] for a in httpx.get(f"{url}/api/attempts?limit=1000").json()}
    finally:
        process.terminate()
        process.wait(timeout=15)
    assert set(acknowledged) <= stored
