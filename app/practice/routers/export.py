"""Export (JSON, CSV) and import (the JSON) of a person's attempts, schedule and review log."""

import json
from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Query, Request
from pydantic import ValidationError
from sqlalchemy.orm import Session
from starlette.datastructures import UploadFile
from starlette.responses import HTMLResponse, Response

from app.accounts.dependencies import UserIdDep
from app.practice import export_import
from app.practice.export_import import CsvTable, ExportDoc, ImportResult
from app.storage.base import utcnow
from app.storage.dependencies import SessionDep, WriteSessionDep
from app.web.errors import field_messages
from app.web.templating import render

router = APIRouter(tags=["export"])

MAX_IMPORT_BYTES = 64 * 1024 * 1024


def _attachment(name: str) -> dict[str, str]:
    # A person's whole history: no browser or proxy cache may keep a copy.
    return {"Content-Disposition": f'attachment; filename="{name}"', "Cache-Control": "no-store"}


@router.get("/api/export.json", response_model=ExportDoc)
def export_json(session: SessionDep, user_id: UserIdDep) -> Response:
    """All of the person's attempts, review states, review logs and settings: what import reads."""
    now = utcnow()
    doc = export_import.export_document(session, user_id, now)
    return Response(
        doc.model_dump_json(indent=1),
        media_type="application/json",
        headers=_attachment(f"tiercards-{now:%Y%m%d}.json"),
    )


@router.get("/api/export.csv", response_class=Response)
def export_csv(
    session: SessionDep, user_id: UserIdDep, table: Annotated[CsvTable, Query()] = "attempts"
) -> Response:
    """One table as CSV: `attempts` (default), `schedule` (review states) or `reviews` (the log)."""
    now = utcnow()
    return Response(
        export_import.export_csv(session, user_id, table, now),
        media_type="text/csv; charset=utf-8",
        headers=_attachment(f"tiercards-{table}-{now:%Y%m%d}.csv"),
    )


def _unprocessable(errors: list[Any]) -> HTTPException:
    return HTTPException(status_code=422, detail=errors)


def _parse(raw: bytes) -> ExportDoc:
    if len(raw) > MAX_IMPORT_BYTES:
        raise HTTPException(status_code=413, detail=f"an import is at most {MAX_IMPORT_BYTES // 2**20} MB")
    try:
        data = json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        problem = {"loc": ["body"], "msg": f"not JSON: {error}", "type": "json_invalid"}
        raise _unprocessable([problem]) from None
    try:
        return ExportDoc.model_validate(data)
    except ValidationError as error:
        raise _unprocessable(json.loads(error.json(include_url=False, include_context=False))) from None


def _store(session: Session, user_id: int, doc: ExportDoc) -> ImportResult:
    try:
        result = export_import.import_document(session, user_id, doc)
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
async def import_json(request: Request, session: WriteSessionDep, user_id: UserIdDep) -> ImportResult:
    """Merge an export back in (idempotent: see docs/scheduling.md). Malformed input: 422, nothing stored."""
    return _store(session, user_id, _parse(await request.body()))


@router.post("/progress/import", response_class=HTMLResponse, include_in_schema=False)
async def import_upload(request: Request, session: WriteSessionDep, user_id: UserIdDep) -> HTMLResponse:
    form = await request.form()
    upload = form.get("file")
    if not isinstance(upload, UploadFile):
        return render(request, "_progress_import.html", status_code=422, errors=["choose a JSON export file"])
    try:
        result = _store(session, user_id, _parse(await upload.read(MAX_IMPORT_BYTES + 1)))
    except HTTPException as error:
        detail = error.detail if isinstance(error.detail, list) else [{"msg": str(error.detail)}]
        errors = field_messages(detail[:10])
        return render(request, "_progress_import.html", status_code=error.status_code, errors=errors)
    return render(request, "_progress_import.html", result=result, filename=upload.filename)
