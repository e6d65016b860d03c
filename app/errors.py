"""Errors read as pages in the browser and as JSON from the API."""

from fastapi import FastAPI, Request
from fastapi.exception_handlers import http_exception_handler, request_validation_exception_handler
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException
from starlette.responses import Response

from app.templating import is_htmx, render


def _wants_html(request: Request) -> bool:
    path = request.url.path
    if path.startswith("/api/") or path == "/healthz" or is_htmx(request):
        return False
    return "text/html" in request.headers.get("accept", "")


def install_error_pages(app: FastAPI) -> None:
    @app.exception_handler(HTTPException)
    async def http_error(request: Request, error: HTTPException) -> Response:
        if _wants_html(request):
            return render(
                request,
                "error.html",
                status_code=error.status_code,
                status=error.status_code,
                messages=_messages(error.detail),
            )
        return await http_exception_handler(request, error)

    @app.exception_handler(RequestValidationError)
    async def validation_error(request: Request, error: RequestValidationError) -> Response:
        if _wants_html(request):
            messages = [f"{'.'.join(map(str, e['loc'][1:]))}: {e['msg']}" for e in error.errors()]
            return render(request, "error.html", status_code=422, status=422, messages=messages)
        return await request_validation_exception_handler(request, error)


def _messages(detail: object) -> list[str]:
    if isinstance(detail, list):
        return [str(item.get("msg", item)) if isinstance(item, dict) else str(item) for item in detail]
    return [str(detail)]
