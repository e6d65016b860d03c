"""The export and import JSON API (OpenAPI at /docs): a person's whole history as a JSON file or
one CSV table, and a file merged back in."""

import logging
import pathlib
import tempfile
from collections.abc import AsyncIterator
from typing import IO, Annotated, Any, BinaryIO, cast

import anyio
from fastapi import APIRouter, Depends, Query, Request
from starlette.datastructures import UploadFile
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.types import Receive, Scope, Send

from app.accounts.dependencies import UserIdDep
from app.content.dependencies import CatalogueDep
from app.exceptions import InvalidFile, NotThisFormat
from app.storage.base import utcnow
from app.storage.dependencies import DatabaseDep, SessionDep
from app.transfer import csv_tables, export, reader
from app.transfer import merge as merging
from app.transfer.csv_tables import CsvTable
from app.transfer.dependencies import MergeDep
from app.transfer.merge import ImportResult
from app.transfer.schemas import ExportDoc
from app.web.dependencies import ClientAddressDep, SettingsDep

router = APIRouter(prefix="/api")


def _attachment(name: str) -> dict[str, str]:
    # A person's whole history: no browser or proxy cache may keep a copy.
    return {"Content-Disposition": f'attachment; filename="{name}"', "Cache-Control": "no-store"}


# How much of a spooled export is read from its file at a time.
READ_BYTES = 64 * 1024
log = logging.getLogger("tiercards.web")


class _HeldDownload(StreamingResponse):
    """A held export's file as the response body. Every row is written before the status goes
    out, so a failure still answers 500 and nothing can fail after the first byte but the
    deadline: the response ends there, however slowly its client reads, without its last chunk
    (the server closes the connection, so the client sees a file cut short, never a shorter
    file). The file is closed, which deletes it, when the response ends, however it ends."""

    def __init__(self, held: export.Held, *, media_type: str, name: str) -> None:
        super().__init__(_read_off_the_loop(held), media_type=media_type, headers=_attachment(name))
        self.held = held

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            with anyio.move_on_after(self.held.seconds_left()) as deadline:
                await super().__call__(scope, receive, send)
            cut_off = deadline.cancelled_caught
        except export.CutOff:  # closed at its deadline by another request's look at the holds
            cut_off = True
        finally:
            with anyio.CancelScope(shield=True):
                await anyio.to_thread.run_sync(self.held.close)
        if cut_off:
            log.warning("an export's download was cut off, unfinished, at EXPORT_DOWNLOAD_SECONDS")


async def _read_off_the_loop(held: export.Held) -> AsyncIterator[bytes]:
    """The file a piece at a time, each read on the thread pool: a disk file's reads and its
    close are the only work left. Read to its end, it is closed before the last chunk goes, so
    its client's next export finds its place free."""
    while chunk := await anyio.to_thread.run_sync(held.read, READ_BYTES):
        yield chunk
    await anyio.to_thread.run_sync(held.close)


async def _spool_folder(settings: SettingsDep) -> pathlib.Path:
    # The data folder, not /tmp: that may be memory (tmpfs), and a long history's file is large.
    return settings.data_dir / "tmp"


SpoolFolderDep = Annotated[pathlib.Path, Depends(_spool_folder)]


async def _hold_limits(settings: SettingsDep) -> export.HoldLimits:
    return export.HoldLimits(
        per_person=settings.exports_held_per_person,
        at_once=settings.exports_held_at_once,
        seconds=settings.export_download_seconds,
    )


HoldLimitsDep = Annotated[export.HoldLimits, Depends(_hold_limits)]


# Exports being written at once are bounded (see export.EXPORTS_AT_ONCE), and so are the files
# held for downloads (EXPORTS_HELD_PER_PERSON, EXPORTS_HELD_AT_ONCE).
_BUSY: dict[int | str, dict[str, Any]] = {
    429: {
        "description": "As many exports as the server writes at once are being written, or as many as"
        " it holds for you (or for everyone) are still downloading"
    }
}


@router.get("/export.json", response_model=ExportDoc, tags=["export"], responses=_BUSY)
def export_json(
    *,
    session: SessionDep,
    db: DatabaseDep,
    folder: SpoolFolderDep,
    user_id: UserIdDep,
    address: ClientAddressDep,
    limits: HoldLimitsDep,
) -> StreamingResponse:
    """All of the person's attempts, review states, review logs and settings: what import reads.
    While EXPORTS_AT_ONCE exports are being written, or the person's (or everyone's) downloads
    still hold as many files as allowed: 429. A download has EXPORT_DOWNLOAD_SECONDS."""
    now = utcnow()
    with export.hold(user_id=user_id, limits=limits) as held, export.writing_turn():
        export.record(session, user_id=user_id, address=address, format="json")
        held.write(export.document(db.read_sessions, user_id=user_id, now=now), folder=folder)
    return _HeldDownload(held, media_type="application/json", name=f"tiercards-{now:%Y%m%d}.json")


@router.get("/export.csv", response_class=Response, tags=["export"], responses=_BUSY)
def export_csv(
    *,
    session: SessionDep,
    db: DatabaseDep,
    folder: SpoolFolderDep,
    user_id: UserIdDep,
    address: ClientAddressDep,
    catalogue: CatalogueDep,
    limits: HoldLimitsDep,
    table: Annotated[CsvTable, Query()] = "attempts",
) -> StreamingResponse:
    """One table as CSV: `attempts` (default), `schedule` (review states) or `reviews` (the log).
    429 as for export.json."""
    now = utcnow()
    cards = catalogue.snapshot().cards
    with export.hold(user_id=user_id, limits=limits) as held, export.writing_turn():
        export.record(session, user_id=user_id, address=address, format=f"csv {table}")
        held.write(
            csv_tables.table(db.read_sessions, user_id=user_id, table=table, now=now, cards=cards),
            folder=folder,
        )
    name = f"tiercards-{table}-{now:%Y%m%d}.csv"
    return _HeldDownload(held, media_type="text/csv; charset=utf-8", name=name)


# Small files stay in memory; larger ones go to disk as they arrive, and are read a row at a time.
SPOOL_IN_MEMORY_BYTES = 1024 * 1024


def _no_import_running(session: SessionDep, user_id: UserIdDep) -> None:
    merging.refuse_while_running(session, user_id)


async def _spooled_body(
    request: Request, _free: Annotated[None, Depends(_no_import_running)]
) -> AsyncIterator[IO[bytes]]:
    # A form's body is read whole by the CSRF check before this; only JSON is streamed here (a
    # body sent with no type, as `curl --data-binary` can, is read as JSON too).
    if request.headers.get("content-type", "").split(";")[0].strip().lower() not in ("", "application/json"):
        raise NotThisFormat("send the export file as the body, with Content-Type: application/json")
    # UploadFile writes to the spool off the loop once it has gone to disk; it closes it below.
    spool = UploadFile(cast(BinaryIO, tempfile.SpooledTemporaryFile(max_size=SPOOL_IN_MEMORY_BYTES)))  # noqa: SIM115
    try:
        async for chunk in request.stream():
            await spool.write(chunk)
        yield spool.file
    finally:
        await spool.close()


@router.post(
    "/import",
    tags=["export"],
    response_model=ImportResult,
    responses={
        413: {"description": "The file would take you past the import quota (IMPORT_ROWS_PER_PERSON)"},
        415: {"description": "The body is not sent as application/json"},
        422: {"description": "The first 50 problems in `detail`, how many more in `more_problems`"},
        429: {"description": "Another import of yours is still running"},
    },
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ExportDoc"}}},
        }
    },
)
def import_json(
    body: Annotated[IO[bytes], Depends(_spooled_body)], merge: MergeDep
) -> ImportResult | JSONResponse:
    """Merge an export back in (idempotent: see docs/scheduling.md). Malformed input: 422, nothing
    stored; past the person's import quota: 413, nothing stored. While another import of the
    person's runs: 429."""
    # Sync: the file is read and merged on the thread pool, each batch its own write transaction.
    try:
        file = reader.read(body)
    except InvalidFile as error:
        return JSONResponse({"detail": error.problems, "more_problems": error.more}, status_code=422)
    return merge(file, "api")
