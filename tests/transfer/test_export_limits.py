"""What a download of an export costs the server while the client reads it: no database
connection, no read transaction, a bounded number written at once, a bounded number held on disk
(per person and in all) each until its deadline, and no file left behind."""

import asyncio
import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import event, func, select

from app.accounts.models import AuditEvent
from app.exceptions import TooMany
from app.transfer import export
from app.transfer.export import BATCH_ROWS, EXPORTS_AT_ONCE, HoldLimits
from tests.factories import make_attempt
from tests.helpers.clients import get_scope
from tests.helpers.practice import add

URLS = ["/api/export.json", "/api/export.csv", "/api/export.csv?table=reviews"]


class _Download:
    """A request for `url` straight into the app, on a thread of its own, whose client reads the
    first chunk and then stops reading until `finish`: it then reads the rest, or goes away."""

    def __init__(self, app: FastAPI, url: str, cookies: str = "") -> None:
        self.first_chunk = threading.Event()
        self.sent: list[dict[str, Any]] = []
        self._go = threading.Event()
        self._leave = False
        scope = get_scope(url)
        if cookies:  # a signed-in person's download
            scope["headers"] = [*scope["headers"], (b"cookie", cookies.encode())]
        self._thread = threading.Thread(target=anyio.run, args=(app, scope, self._receive, self._send))
        self._thread.start()

    async def _stalled(self) -> None:
        while not self._go.is_set():
            await anyio.sleep(0.01)

    async def _receive(self) -> dict[str, Any]:
        if self.sent:
            await self._stalled()
            if not self._leave:
                await anyio.sleep_forever()
            return {"type": "http.disconnect"}
        self.sent.append({"type": "http.request"})
        return {"type": "http.request", "body": b"", "more_body": False}

    async def _send(self, message: dict[str, Any]) -> None:
        self.sent.append(message)
        if message["type"] == "http.response.body" and not self.first_chunk.is_set():
            self.first_chunk.set()
            await self._stalled()
        elif message["type"] == "http.response.start" and message["status"] != 200:
            self.first_chunk.set()

    @property
    def status(self) -> int:
        return next(m["status"] for m in self.sent if m["type"] == "http.response.start")

    def ended(self, timeout: float) -> bool:
        """Whether the app has finished with the request within `timeout` seconds, unread."""
        self._thread.join(timeout=timeout)
        return not self._thread.is_alive()

    @property
    def complete(self) -> bool:
        """Whether the body was sent to its end (a body cut short never says it ended)."""
        return any(m["type"] == "http.response.body" and not m.get("more_body") for m in self.sent)

    def finish(self, *, leave: bool = False) -> None:
        self._leave = leave
        self._go.set()
        self._thread.join(timeout=30)


@contextmanager
def stalled_downloads(app: FastAPI, url: str, count: int, cookies: str = "") -> Iterator[list[_Download]]:
    """`count` downloads of `url`, each stopped after its first chunk until the block ends."""
    downloads: list[_Download] = []
    try:
        for _ in range(count):
            downloads.append(_Download(app, url, cookies))
            assert downloads[-1].first_chunk.wait(timeout=30)
        yield downloads
    finally:
        for download in downloads:
            download.finish()


def history(app: FastAPI) -> None:
    """More rows than the export reads at once, more text than it sends at once."""
    add(
        app,
        *(
            make_attempt(text=f"answer {i}: " + "prefetch overlaps input. " * 8)
            for i in range(2 * BATCH_ROWS)
        ),
    )


def spooled_files(settings_dir: Path) -> list[str]:
    """The files this process holds open in the data folder's spool."""
    folder = str(settings_dir / "tmp")
    held = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:  # closed since it was listed
            continue
        if target.startswith(folder):
            held.append(target)
    return held


def exports_audited(app: FastAPI) -> int:
    with app.state.db.read_sessions() as session:
        return session.scalar(select(func.count()).where(AuditEvent.kind == "export")) or 0


@pytest.mark.parametrize("url", URLS)
def test_slow_downloads_hold_no_database_connection(
    app: FastAPI, client: TestClient, url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """More slow downloads than exports may be written at once all get their file, and while
    their clients read none of them holds a connection or a read transaction: on SQLite the
    checkpoint that erases deleted recordings' sound completes."""
    # One person may hold as many as this test opens (the default holds two a person).
    monkeypatch.setattr(app.state.settings, "exports_held_per_person", EXPORTS_AT_ONCE + 2)
    history(app)
    engine = app.state.db.engine
    with stalled_downloads(app, url, EXPORTS_AT_ONCE + 1) as downloads:
        assert [d.status for d in downloads] == [200] * (EXPORTS_AT_ONCE + 1)
        assert engine.pool.checkedout() == 0
        if engine.dialect.name == "sqlite":
            with engine.connect() as connection:
                busy, _, _ = connection.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)").one()
            assert busy == 0
        # The file is on disk while it is read, not in the server's memory.
        assert len(spooled_files(app.state.settings.data_dir)) == EXPORTS_AT_ONCE + 1
        assert client.get(url).status_code == 200


@pytest.mark.parametrize("url", URLS)
def test_an_export_past_the_limit_at_once_is_refused_with_a_time_to_retry(
    app: FastAPI, client: TestClient, url: str
) -> None:
    before = exports_audited(app)
    with ExitStack() as writing:
        for _ in range(EXPORTS_AT_ONCE):
            writing.enter_context(export.writing_turn())
        refused = client.get(url)
        assert refused.status_code == 429
        assert int(refused.headers["retry-after"]) > 0
        assert "export" in refused.json()["detail"] and "try again" in refused.json()["detail"]
        assert exports_audited(app) == before
    assert client.get(url).status_code == 200
    assert exports_audited(app) == before + 1


@pytest.mark.parametrize("url", URLS)
def test_a_download_cut_short_leaves_no_file_and_no_database_work_on_the_loop(
    app: FastAPI, client: TestClient, url: str
) -> None:
    history(app)
    on_the_loop: list[str] = []

    def note(*_: object) -> None:
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return
        on_the_loop.append(threading.current_thread().name)

    engine = app.state.db.engine
    event.listen(engine, "checkin", note)
    try:
        with stalled_downloads(app, url, 1) as (download,):
            download.finish(leave=True)
    finally:
        event.remove(engine, "checkin", note)
    assert on_the_loop == []
    assert spooled_files(app.state.settings.data_dir) == []
    assert client.get(url).status_code == 200


def test_an_export_that_fails_while_written_answers_500_and_frees_its_turn(
    app: FastAPI, client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Nothing can fail once the first byte is sent: a row that cannot be written is met before."""
    history(app)
    written = export._attempt_doc
    calls = iter(range(10 * BATCH_ROWS))

    def fails_late(attempt: Any) -> Any:
        if next(calls) == BATCH_ROWS + 1:
            raise RuntimeError("a row that cannot be written")
        return written(attempt)

    monkeypatch.setattr(export, "_attempt_doc", fails_late)
    with TestClient(app, raise_server_exceptions=False) as fresh:
        assert fresh.get("/api/export.json").status_code == 500
    monkeypatch.undo()
    assert spooled_files(app.state.settings.data_dir) == []
    for _ in range(EXPORTS_AT_ONCE + 1):
        assert client.get("/api/export.json").status_code == 200


def held_bytes(settings_dir: Path) -> int:
    """The bytes of the spool files this process holds open."""
    folder = str(settings_dir / "tmp")
    total = 0
    for fd in os.listdir("/proc/self/fd"):
        try:
            if os.readlink(f"/proc/self/fd/{fd}").startswith(folder):
                total += os.stat(f"/proc/self/fd/{fd}").st_size
        except OSError:  # closed since it was listed
            continue
    return total


def cookies_of(client: TestClient) -> str:
    return "; ".join(f"{name}={value}" for name, value in client.cookies.items())


def assert_refused(response: Any, limit: str) -> None:
    """429 with a sentence that names `limit` and says when to try again."""
    assert response.status_code == 429, response.text
    assert int(response.headers["retry-after"]) > 0
    assert limit in response.json()["detail"]


@pytest.mark.parametrize("url", URLS)
def test_a_person_holds_at_most_exports_held_per_person_unread_downloads(
    app: FastAPI, client: TestClient, url: str
) -> None:
    """Downloads opened and left unread are bounded per person: past the limit, 429 naming it,
    and nothing is written or audited, so the disk holds at most the limit's files."""
    history(app)
    per_person = app.state.settings.exports_held_per_person
    with stalled_downloads(app, url, per_person) as downloads:
        assert [d.status for d in downloads] == [200] * per_person
        held = held_bytes(app.state.settings.data_dir)
        before = exports_audited(app)
        for _ in range(3):
            assert_refused(client.get(url), "EXPORTS_HELD_PER_PERSON")
        assert exports_audited(app) == before
        assert len(spooled_files(app.state.settings.data_dir)) == per_person
        assert held_bytes(app.state.settings.data_dir) == held
    # Read to their end (or gone), they hold nothing.
    assert spooled_files(app.state.settings.data_dir) == []
    assert client.get(url).status_code == 200


def test_this_process_holds_at_most_exports_held_at_once_unread_downloads(
    team_app: FastAPI, signed_in: Callable[[str], TestClient], monkeypatch: pytest.MonkeyPatch
) -> None:
    """One person at their limit leaves others their downloads, up to the process's bound."""
    settings = team_app.state.settings
    monkeypatch.setattr(settings, "exports_held_per_person", 2)
    monkeypatch.setattr(settings, "exports_held_at_once", 3)
    alice, bob = signed_in("alice"), signed_in("bob")
    url = "/api/export.json"
    with stalled_downloads(team_app, url, 2, cookies_of(alice)):
        assert_refused(alice.get(url), "EXPORTS_HELD_PER_PERSON")
        with stalled_downloads(team_app, url, 1, cookies_of(bob)) as (download,):
            assert download.status == 200
            assert_refused(bob.get(url), "EXPORTS_HELD_AT_ONCE")
            assert len(spooled_files(settings.data_dir)) == 3
        assert bob.get(url).status_code == 200
    assert alice.get(url).status_code == 200


@pytest.mark.parametrize("url", URLS)
def test_an_unread_download_is_cut_off_at_its_deadline_and_its_file_removed(
    app: FastAPI, client: TestClient, url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(app.state.settings, "export_download_seconds", 1.0)
    history(app)
    with stalled_downloads(app, url, 1) as (download,):
        assert len(spooled_files(app.state.settings.data_dir)) == 1
        # The client never reads on: the response ends at the deadline, cut short.
        assert download.ended(timeout=10)
        assert not download.complete
        assert spooled_files(app.state.settings.data_dir) == []
    assert client.get(url).status_code == 200


def test_a_held_export_past_its_deadline_is_closed_by_the_next_one_asked_for(tmp_path: Path) -> None:
    """A hold whose response never ran (nothing reads it, nothing closes it) frees its place and
    its file once its deadline has passed."""
    limits = HoldLimits(per_person=1, at_once=10, seconds=0.2)
    first = export.HELD.take(user_id=-1, limits=limits)
    first.write((text for text in ["{}"]), folder=tmp_path)
    with pytest.raises(TooMany):
        export.HELD.take(user_id=-1, limits=limits)
    time.sleep(0.3)
    second = export.HELD.take(user_id=-1, limits=limits)
    try:
        with pytest.raises(export.CutOff):
            first.read(10)
    finally:
        second.close()
