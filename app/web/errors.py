"""Errors read as pages in the browser and as JSON from the API."""

from http import HTTPStatus
from typing import Any

from fastapi import FastAPI, Request
from fastapi.encoders import jsonable_encoder
from fastapi.exception_handlers import http_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.routing import APIRoute
from pydantic import ValidationError
from starlette.exceptions import HTTPException
from starlette.responses import JSONResponse, Response

from app.exceptions import (
    Conflict,
    DomainError,
    Forbidden,
    Invalid,
    NotFound,
    NotThisFormat,
    TooLarge,
    TooMany,
    Unavailable,
    field_messages,
)
from app.web.messages import describe, sentence
from app.web.openapi import allowed_methods
from app.web.templating import is_htmx, render


def error_messages(error: ValidationError | HTTPException | DomainError, whole: str = "value") -> list[str]:
    """What a form shows for a failed validation or a refused request: one line a problem."""
    if isinstance(error, ValidationError):
        return field_messages(error.errors(), whole)
    if isinstance(error, DomainError):
        return [error.message]
    detail = error.detail
    if isinstance(detail, list):
        return [str(item.get("msg", item)) if isinstance(item, dict) else str(item) for item in detail]
    return [str(detail)]


def _wants_html(request: Request) -> bool:
    path = request.url.path
    if path.startswith("/api/") or path == "/healthz" or is_htmx(request):
        return False
    return "text/html" in request.headers.get("accept", "")


# The one place a domain error becomes an HTTP status.
STATUS_BY_ERROR: tuple[tuple[type[DomainError], int], ...] = (
    (NotFound, 404),
    (Forbidden, 403),
    (Invalid, 422),
    (Conflict, 409),
    (NotThisFormat, 415),
    (TooLarge, 413),
    (TooMany, 429),
    (Unavailable, 503),
)


def status_of(error: DomainError) -> int:
    """The status `error` answers with; for a page that renders its own refusal."""
    return next((code for kind, code in STATUS_BY_ERROR if isinstance(error, kind)), 400)


def headers_of(error: DomainError) -> dict[str, str] | None:
    """The headers that go with `error`'s status: a limit says when to try again."""
    return {"Retry-After": str(error.retry_after)} if isinstance(error, TooMany) else None


def as_http(error: DomainError) -> HTTPException:
    detail: Any = error.detail() if isinstance(error, Invalid) else error.message
    return HTTPException(status_code=status_of(error), detail=detail, headers=headers_of(error))


def _says_only_its_status(error: HTTPException) -> bool:
    """Starlette's own detail is the status phrase ("Not Found"), which the page's heading says."""
    try:
        return error.detail == HTTPStatus(error.status_code).phrase
    except ValueError:
        return False


def _parameter_titles(request: Request) -> dict[str, str]:
    """The route's parameters that declare a title, by name: what the page calls them."""
    route = request.scope.get("route")
    if not isinstance(route, APIRoute):
        return {}
    fields = [*route.dependant.query_params, *route.dependant.path_params]
    return {f.alias: f.field_info.title for f in fields if f.field_info.title}


def install_error_pages(app: FastAPI) -> None:
    @app.exception_handler(HTTPException)
    async def http_error(request: Request, error: HTTPException) -> Response:
        if error.status_code == 405:
            error.headers = {**(error.headers or {}), "Allow": allowed_methods(request.app, request.url.path)}
        if _wants_html(request):
            return render(
                request,
                "error.html",
                status_code=error.status_code,
                status=error.status_code,
                messages=[] if _says_only_its_status(error) else [sentence(m) for m in error_messages(error)],
            )
        return await http_exception_handler(request, error)

    @app.exception_handler(DomainError)
    async def domain_error(request: Request, error: DomainError) -> Response:
        return await http_error(request, as_http(error))

    @app.exception_handler(RequestValidationError)
    async def validation_error(request: Request, error: RequestValidationError) -> Response:
        if _wants_html(request):
            # The first part of `loc` says where the value came from (query, path, body); a
            # parameter reads as the page labels it (its `title`), else by its name.
            labels = _parameter_titles(request)
            names = [".".join(map(str, e["loc"][1:])) or str(e["loc"][0]) for e in error.errors()]
            messages = [describe(e, labels.get(n, n)) for e, n in zip(error.errors(), names, strict=True)]
            return render(request, "error.html", status_code=422, status=422, messages=messages)
        # The input is left out: echoing it back would hand a client its whole body again.
        detail = [{k: v for k, v in e.items() if k != "input"} for e in error.errors()]
        return JSONResponse({"detail": jsonable_encoder(detail)}, status_code=422)
