"""Export (JSON, CSV) and import (the JSON) of a person's attempts, schedule and review log."""

import tempfile
from collections.abc import AsyncIterator, Callable
from datetime import timedelta
from typing import IO, Annotated, Any, BinaryIO, cast

from fastapi import APIRouter, Depends, Query, Request
from sqlalchemy.orm import Session
from starlette.datastructures import UploadFile
from starlette.responses import HTMLResponse, JSONResponse, Response

from app.accounts import audit
from app.accounts.dependencies import UserIdDep
from app.content.dependencies import CatalogueDep
from app.exceptions import InvalidFile, NotThisFormat
from app.practice import export, import_file, import_merge
from app.practice import export_csv as csv_tables
from app.practice.export_csv import CsvTable
from app.practice.export_schema import ExportDoc
from app.practice.import_file import ImportFile
from app.practice.import_merge import ImportResult
from app.storage.base import utcnow
from app.storage.dependencies import DatabaseDep, SessionDep
from app.web.dependencies import ClientAddressDep, FormDep, SettingsDep
from app.web.messages import describe, sentence
from app.web.templating import render

router = APIRouter(tags=["export"])


def _attachment(name: str) -> dict[str, str]:
    # A person's whole history: no browser or proxy cache may keep a copy.
    return {"Content-Disposition": f'attachment; filename="{name}"', "Cache-Control": "no-store"}


@router.get("/api/export.json", response_model=ExportDoc)
def export_json(*, session: SessionDep, user_id: UserIdDep, address: ClientAddressDep) -> Response:
    """All of the person's attempts, review states, review logs and settings: what import reads."""
    export.record(session, user_id=user_id, address=address, format="json")
    now = utcnow()
    doc = export.document(session, user_id=user_id, now=now)
    return Response(
        doc.model_dump_json(indent=1),
        media_type="application/json",
        headers=_attachment(f"tiercards-{now:%Y%m%d}.json"),
    )


@router.get("/api/export.csv", response_class=Response)
def export_csv(
    *,
    session: SessionDep,
    user_id: UserIdDep,
    address: ClientAddressDep,
    catalogue: CatalogueDep,
    table: Annotated[CsvTable, Query()] = "attempts",
) -> Response:
    """One table as CSV: `attempts` (default), `schedule` (review states) or `reviews` (the log)."""
    export.record(session, user_id=user_id, address=address, format=f"csv {table}")
    now = utcnow()
    return Response(
        csv_tables.table(session, user_id=user_id, table=table, now=now, cards=catalogue.snapshot().cards),
        media_type="text/csv; charset=utf-8",
        headers=_attachment(f"tiercards-{table}-{now:%Y%m%d}.csv"),
    )


# Small files stay in memory; larger ones go to disk as they arrive, and are read a row at a time.
SPOOL_IN_MEMORY_BYTES = 1024 * 1024


def _no_import_running(session: SessionDep, user_id: UserIdDep) -> None:
    import_merge.refuse_while_running(session, user_id)


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


Merge = Callable[[ImportFile, str], ImportResult]


async def _merger(
    *,
    settings: SettingsDep,
    db: DatabaseDep,
    user_id: UserIdDep,
    address: ClientAddressDep,
    catalogue: CatalogueDep,
) -> Merge:
    """Merging a file in for the person asking, against the cards served then; `via` names the
    route in the audit log. Async: handing it out touches nothing that blocks."""

    def merge(file: ImportFile, via: str) -> ImportResult:
        def record(session: Session) -> None:
            audit.record(session, kind="import", user_id=user_id, actor_id=user_id, address=address, via=via)

        return import_merge.merge(
            sessions=db.write_sessions,
            reads=db.read_sessions,
            user_id=user_id,
            file=file,
            cards=catalogue.snapshot().cards,
            lease=timedelta(seconds=settings.import_lease_seconds),
            on_start=record,
        )

    return merge


MergeDep = Annotated[Merge, Depends(_merger)]


@router.post(
    "/api/import",
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
        file = import_file.read(body)
    except InvalidFile as error:
        return JSONResponse({"detail": error.problems, "more_problems": error.more}, status_code=422)
    return merge(file, "api")


def _file_problem(error: dict[str, Any]) -> str:
    """One problem of an uploaded file, in a sentence that says where in the file it is."""
    if error.get("type") == "json_invalid":
        return "The file is not JSON: choose a file that tiercards exported."
    where = ".".join(map(str, error.get("loc") or ()))
    return describe(error, f"In the file, “{where}”") if where else sentence(str(error.get("msg")))


@router.post("/progress/import", response_class=HTMLResponse, include_in_schema=False)
def import_upload(request: Request, *, form: FormDep, merge: MergeDep) -> HTMLResponse:
    upload = form.get("file")
    if not isinstance(upload, UploadFile):
        return render(
            request, "_progress_import.html", status_code=422, errors=["Choose a JSON export file to import."]
        )
    try:
        file = import_file.read(upload.file)
    except InvalidFile as error:
        errors = [_file_problem(problem) for problem in error.problems]
        return render(request, "_progress_import.html", status_code=422, errors=errors, more=error.more)
    result = merge(file, "upload")
    return render(request, "_progress_import.html", result=result, filename=upload.filename)
