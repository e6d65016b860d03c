"""Export (JSON, CSV) and import (the JSON) of a person's attempts, schedule and review log."""

import json
from typing import Annotated, Any, cast

from fastapi import APIRouter, Depends, HTTPException, Query, Request
from pydantic import ValidationError
from sqlalchemy.orm import Session
from starlette.datastructures import UploadFile
from starlette.responses import HTMLResponse, Response

from app.accounts import audit
from app.accounts.dependencies import UserIdDep
from app.content.catalogue import Catalogue
from app.content.dependencies import CatalogueDep
from app.practice import export_import
from app.practice.export_import import CsvTable, ExportDoc, ImportResult
from app.storage.base import utcnow
from app.storage.dependencies import SessionDep, WriteSessionDep
from app.web.dependencies import ClientAddressDep, FormDep
from app.web.messages import describe, sentence
from app.web.templating import render

router = APIRouter(tags=["export"])


def _audited_export(session: Session, address: str | None, user_id: int, **detail: str) -> None:
    """Record the export before reading it: a read session may then write without meeting
    another writer's newer snapshot."""
    audit.record(session, "export", user_id=user_id, actor_id=user_id, address=address, **detail)
    session.commit()


def _attachment(name: str) -> dict[str, str]:
    # A person's whole history: no browser or proxy cache may keep a copy.
    return {"Content-Disposition": f'attachment; filename="{name}"', "Cache-Control": "no-store"}


@router.get("/api/export.json", response_model=ExportDoc)
def export_json(session: SessionDep, user_id: UserIdDep, address: ClientAddressDep) -> Response:
    """All of the person's attempts, review states, review logs and settings: what import reads."""
    _audited_export(session, address, user_id, format="json")
    now = utcnow()
    doc = export_import.export_document(session, user_id, now)
    return Response(
        doc.model_dump_json(indent=1),
        media_type="application/json",
        headers=_attachment(f"tiercards-{now:%Y%m%d}.json"),
    )


@router.get("/api/export.csv", response_class=Response)
def export_csv(
    session: SessionDep,
    user_id: UserIdDep,
    address: ClientAddressDep,
    catalogue: CatalogueDep,
    table: Annotated[CsvTable, Query()] = "attempts",
) -> Response:
    """One table as CSV: `attempts` (default), `schedule` (review states) or `reviews` (the log)."""
    _audited_export(session, address, user_id, format=f"csv {table}")
    now = utcnow()
    return Response(
        export_import.export_csv(session, user_id, table, now, catalogue.snapshot().cards),
        media_type="text/csv; charset=utf-8",
        headers=_attachment(f"tiercards-{table}-{now:%Y%m%d}.csv"),
    )


def _parse(raw: bytes) -> ExportDoc:
    """The export file, parsed and validated, or a 422 saying what is wrong (nothing stored)."""
    try:
        return ExportDoc.model_validate_json(raw)
    except ValidationError as error:
        detail = json.loads(error.json(include_url=False, include_context=False, include_input=False))
        raise HTTPException(status_code=422, detail=detail) from None


async def _read_body(request: Request) -> bytes:
    return await request.body()


# Sync, so FastAPI parses and validates (up to MAX_IMPORT_BYTES) in its thread pool, before the
# route takes the write session: the loop keeps serving, and no writer waits on a parse.
def _body_document(raw: Annotated[bytes, Depends(_read_body)]) -> ExportDoc:
    return _parse(raw)


def _file_problem(error: dict[str, Any]) -> str:
    """One problem of an uploaded file, in a sentence that says where in the file it is."""
    if error.get("type") == "json_invalid":
        return "The file is not JSON: choose a file that tiercards exported."
    where = ".".join(map(str, error.get("loc") or ()))
    return describe(error, f"In the file, “{where}”") if where else sentence(str(error.get("msg")))


def _uploaded_document(form: FormDep) -> ExportDoc | list[str]:
    """The uploaded export, or what the form should say is wrong with it."""
    upload = form.get("file")
    if not isinstance(upload, UploadFile):
        return ["Choose a JSON export file to import."]
    try:
        return _parse(upload.file.read())
    except HTTPException as error:
        return [_file_problem(problem) for problem in cast(list[dict[str, Any]], error.detail)[:10]]


def _store(session: Session, user_id: int, doc: ExportDoc, catalogue: Catalogue) -> ImportResult:
    try:
        result = export_import.import_document(session, user_id, doc, catalogue.snapshot().cards)
        session.commit()
    except Exception:
        session.rollback()
        raise
    return result


@router.post(
    "/api/import",
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ExportDoc"}}},
        }
    },
)
def import_json(
    address: ClientAddressDep,
    doc: Annotated[ExportDoc, Depends(_body_document)],
    session: WriteSessionDep,
    user_id: UserIdDep,
    catalogue: CatalogueDep,
) -> ImportResult:
    """Merge an export back in (idempotent: see docs/scheduling.md). Malformed input: 422, nothing stored."""
    audit.record(session, "import", user_id=user_id, actor_id=user_id, address=address, via="api")
    return _store(session, user_id, doc, catalogue)


@router.post("/progress/import", response_class=HTMLResponse, include_in_schema=False)
def import_upload(
    request: Request,
    form: FormDep,
    doc: Annotated[ExportDoc | list[str], Depends(_uploaded_document)],
    session: WriteSessionDep,
    user_id: UserIdDep,
    address: ClientAddressDep,
    catalogue: CatalogueDep,
) -> HTMLResponse:
    if isinstance(doc, list):
        return render(request, "_progress_import.html", status_code=422, errors=doc)
    audit.record(session, "import", user_id=user_id, actor_id=user_id, address=address, via="upload")
    result = _store(session, user_id, doc, catalogue)
    upload = form.get("file")
    filename = upload.filename if isinstance(upload, UploadFile) else None
    return render(request, "_progress_import.html", result=result, filename=filename)
