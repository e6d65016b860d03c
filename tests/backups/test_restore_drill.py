"""The restore drill, on the engine the suite runs on: a backup taken while 20 people answer holds
every answer acknowledged before it began, restores into a fresh database, and the app serves
from it. A restore never lands on a database that holds something, unless told."""

import threading
import time
from pathlib import Path

import httpx

from tests.factories import OWNER_CARD
from tests.helpers.backups import attempt_ids
from tests.helpers.clients import csrf_client
from tests.helpers.payloads import attempt_payload
from tests.servers import running_server, tiercards_on
from tests.services import suite_engine

WRITERS = 20


def _answer(url: str, acknowledged: list[tuple[float, str]], stop: threading.Event) -> None:
    client = csrf_client(url)
    while not stop.is_set():
        try:
            done = client.post(f"/api/cards/{OWNER_CARD}/attempts", json=attempt_payload(seconds=3))
        except httpx.TransportError:
            continue
        if done.status_code == 201:
            acknowledged.append((time.monotonic(), str(done.json()["id"])))
    client.close()


def test_a_backup_taken_under_load_restores_every_acknowledged_answer(tmp_path: Path) -> None:
    source, restored, backups = tmp_path / "source", tmp_path / "restored", tmp_path / "backups"
    acknowledged: list[tuple[float, str]] = []
    stop = threading.Event()
    with running_server(source, "--no-worker") as url:
        writers = [threading.Thread(target=_answer, args=(url, acknowledged, stop)) for _ in range(WRITERS)]
        for writer in writers:
            writer.start()
        deadline = time.monotonic() + 60
        while len(acknowledged) < 2 * WRITERS and time.monotonic() < deadline:
            time.sleep(0.2)  # every writer is answering, on a busy machine too
        began = time.monotonic()
        taken = tiercards_on(source, "backup", "--to", str(backups))
        time.sleep(1)  # the writers go on past the backup's end
        stop.set()
        for writer in writers:
            writer.join()
    assert taken.returncode == 0, taken.stderr
    path, size = taken.stdout.strip().split("\t")
    assert Path(path).parent == backups and size.endswith("bytes")
    before = {answer for at, answer in acknowledged if at < began}
    assert len(before) >= 2 * WRITERS, "the writers were answering when the backup began"

    done = tiercards_on(restored, "restore", path)
    assert done.returncode == 0, done.stderr
    kept = attempt_ids(restored)
    assert before <= kept, f"{len(before - kept)} acknowledged answers are missing"
    assert kept <= {answer for _, answer in acknowledged}
    # The drill's figures, for whoever runs it with -s.
    print(
        f"\nrestore drill on {suite_engine()}: {len(before)} answers acknowledged before the backup began,"
        f" {len(before & kept)} of them restored; {len(kept)} restored of {len(acknowledged)} acknowledged by"
        " the time the writers stopped"
    )
    with running_server(restored, "--no-worker") as url:
        listed = httpx.get(f"{url}/api/attempts", params={"card_id": OWNER_CARD, "limit": 1000}, timeout=30)
        assert listed.status_code == 200
        assert len(listed.json()) == min(len(kept), 1000)
        assert httpx.get(f"{url}/cards/{OWNER_CARD}", timeout=30).status_code == 200


def _one_answer(url: str) -> str:
    client = csrf_client(url)
    done = client.post(f"/api/cards/{OWNER_CARD}/attempts", json=attempt_payload(seconds=3))
    client.close()
    assert done.status_code == 201, done.text
    return str(done.json()["id"])


def test_a_database_that_holds_anything_is_not_restored_over_unless_told(tmp_path: Path) -> None:
    data, backups = tmp_path / "data", tmp_path / "backups"
    with running_server(data, "--no-worker") as url:
        first = _one_answer(url)
    taken = tiercards_on(data, "backup", "--to", str(backups))
    path = taken.stdout.split("\t")[0]
    with running_server(data, "--no-worker") as url:
        _one_answer(url)
    refused = tiercards_on(data, "restore", path)
    assert refused.returncode == 1
    assert "the database is not empty" in refused.stderr
    assert len(attempt_ids(data)) == 2
    forced = tiercards_on(data, "restore", path, "--force")
    assert forced.returncode == 0, forced.stderr
    assert attempt_ids(data) == {first}


def test_what_is_not_a_backup_is_refused_with_a_sentence(tmp_path: Path) -> None:
    bogus = tmp_path / "tiercards-bogus.tar.gz"
    bogus.write_bytes(b"not a tar at all")
    refused = tiercards_on(tmp_path / "data", "restore", str(bogus))
    assert refused.returncode == 1
    assert "is not a tiercards backup" in refused.stderr
