"""The /progress page's import form: an uploaded export merged in, with its problems in sentences
(the export and import JSON API is in api.py)."""

from typing import Any

from fastapi import APIRouter, Request
from starlette.datastructures import UploadFile
from starlette.responses import HTMLResponse

from app.exceptions import InvalidFile, TooLarge
from app.transfer import reader
from app.transfer.dependencies import MergeDep
from app.web.dependencies import FormDep
from app.web.messages import describe, sentence
from app.web.templating import render

router = APIRouter(tags=["export"])


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
        file = reader.read(upload.file)
    except InvalidFile as error:
        errors = [_file_problem(problem) for problem in error.problems]
        return render(request, "_progress_import.html", status_code=422, errors=errors, more=error.more)
    try:
        result = merge(file, "upload")
    except TooLarge as error:  # past the import quota: said in place of the result, as a bad file is
        return render(request, "_progress_import.html", status_code=422, errors=[sentence(error.message)])
    return render(request, "_progress_import.html", result=result, filename=upload.filename)
