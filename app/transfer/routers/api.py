"""The export and import JSON API (OpenAPI at /docs): a person's whole history as a JSON file or
one CSV table, and a file merged back in."""

import pathlib
import tempfile
from collections.abc import AsyncIterator
from typing import IO, Annotated, Any, BinaryIO, cast

import anyio
from fastapi import APIRouter, Depends, Query, Request
from starlette.datastructures import UploadFile
from starlette.responses import JSONResponse, Response, StreamingResponse

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


def _streamed(file: IO[bytes], *, media_type: str, name: str) -> StreamingResponse:
    """The written export in `file` as the response body: every row is read before the status goes
    out, so a failure still answers 500 and nothing can fail after the first byte."""
    return StreamingResponse(_read_off_the_loop(file), media_type=media_type, headers=_attachment(name))


async def _read_off_the_loop(file: IO[bytes]) -> AsyncIterator[bytes]:
    """The file a piece at a time, each read on the thread pool, closed (which deletes it) when
    the response ends, however it ends: a disk file's reads and close are the only work left."""
    try:
        while chunk := await anyio.to_thread.run_sync(file.read, READ_BYTES):
            yield chunk
    finally:
        with anyio.CancelScope(shield=True):
            await anyio.to_thread.run_sync(file.close)


async def _spool_folder(settings: SettingsDep) -> pathlib.Path:
    # The data folder, not /tmp: that may be memory (tmpfs), and a long history's file is large.
    return settings.data_dir / "tmp"


SpoolFolderDep = Annotated[pathlib.Path, Depends(_spool_folder)]


# Exports being written at once are bounded (see export.EXPORTS_AT_ONCE).
_BUSY: dict[int | str, dict[str, Any]] = {
    429: {"description": "As many exports as the server writes at once are being written"}
}


@router.get("/export.json", response_model=ExportDoc, tags=["export"], responses=_BUSY)
def export_json(
    *,
    session: SessionDep,
    db: DatabaseDep,
    folder: SpoolFolderDep,
    user_id: UserIdDep,
    address: ClientAddressDep,
) -> StreamingResponse:
    """All of the person's attempts, review states, review logs and settings: what import reads.
    While EXPORTS_AT_ONCE exports are being written: 429."""
    now = utcnow()
    with export.writing_turn():
        export.record(session, user_id=user_id, address=address, format="json")
        file = export.spooled(export.document(db.read_sessions, user_id=user_id, now=now), folder=folder)
    return _streamed(file, media_type="application/json", name=f"tiercards-{now:%Y%m%d}.json")


@router.get("/export.csv", response_class=Response, tags=["export"], responses=_BUSY)
def export_csv(
    *,
    session: SessionDep,
    db: DatabaseDep,
    folder: SpoolFolderDep,
    user_id: UserIdDep,
    address: ClientAddressDep,
    catalogue: CatalogueDep,
    table: Annotated[CsvTable, Query()] = "attempts",
) -> StreamingResponse:
    """One table as CSV: `attempts` (default), `schedule` (review states) or `reviews` (the log).
    While EXPORTS_AT_ONCE exports are being written: 429."""
    now = utcnow()
    cards = catalogue.snapshot().cards
    with export.writing_turn():
        export.record(session, user_id=user_id, address=address, format=f"csv {table}")
        file = export.spooled(
            csv_tables.table(db.read_sessions, user_id=user_id, table=table, now=now, cards=cards),
            folder=folder,
        )
    return _streamed(file, media_type="text/csv; charset=utf-8", name=f"tiercards-{table}-{now:%Y%m%d}.csv")


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
    stored. While another import of the person's runs: 429."""
    # Sync: the file is read and merged on the thread pool, each batch its own write transaction.
    try:
        file = reader.read(body)
    except InvalidFile as error:
        return JSONResponse({"detail": error.problems, "more_problems": error.more}, status_code=422)
    return merge(file, "api")
