"""What a download of an export costs the server while the client reads it: no database
connection, no read transaction, a bounded number written at once, and no file left behind."""

import asyncio
import os
import threading
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import event, func, select

from app.accounts.models import AuditEvent
from app.transfer import export
from app.transfer.export import BATCH_ROWS, EXPORTS_AT_ONCE
from tests.factories import make_attempt
from tests.helpers.clients import get_scope
from tests.helpers.practice import add

URLS = ["/api/export.json", "/api/export.csv", "/api/export.csv?table=reviews"]


class _Download:
    """A request for `url` straight into the app, on a thread of its own, whose client reads the
    first chunk and then stops reading until `finish`: it then reads the rest, or goes away."""

    def __init__(self, app: FastAPI, url: str) -> None:
        self.first_chunk = threading.Event()
        self.sent: list[dict[str, Any]] = []
        self._go = threading.Event()
        self._leave = False
        scope = get_scope(url)
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

    def finish(self, *, leave: bool = False) -> None:
        self._leave = leave
        self._go.set()
        self._thread.join(timeout=30)


@contextmanager
def stalled_downloads(app: FastAPI, url: str, count: int) -> Iterator[list[_Download]]:
    """`count` downloads of `url`, each stopped after its first chunk until the block ends."""
    downloads: list[_Download] = []
    try:
        for _ in range(count):
            downloads.append(_Download(app, url))
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
def test_slow_downloads_hold_no_database_connection(app: FastAPI, client: TestClient, url: str) -> None:
    """More slow downloads than exports may be written at once all get their file, and while
    their clients read none of them holds a connection or a read transaction: on SQLite the
    checkpoint that erases deleted recordings' sound completes."""
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
