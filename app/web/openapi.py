"""What the OpenAPI schema says, kept true to what the app does.

- It documents the JSON API (/api/…), /healthz and /readyz; pages are for browsers and /metrics
  for Prometheus, so they stay out of it.
- Every operation lists the errors any request can get from the layers in front of it: 400 (a
  Host not in ALLOWED_HOSTS), 413 (a body over the cap), 422 (input that fails validation), 403
  for writes (CSRF token or Origin), and 404 where the path names something.
- A 405 names every method the path serves (Starlette names only the first route's).
"""

import re
from functools import cache
from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi
from starlette.routing import compile_path

from app.web.security import SAFE_METHODS

# A refusal: what was wrong, in a sentence.
ERROR_BODY = {
    "application/json": {
        "schema": {"type": "object", "properties": {"detail": {"type": "string"}}, "required": ["detail"]}
    }
}


def _error(description: str) -> dict[str, Any]:
    return {"description": description, "content": ERROR_BODY}


def _documented(path: str) -> bool:
    return path.startswith("/api/") or path in ("/healthz", "/readyz")


def _errors(path: str, method: str) -> dict[str, dict[str, Any]]:
    errors = {
        "400": _error("The Host header is not one this server answers to"),
        "413": _error("The request body is larger than the server accepts"),
        # FastAPI lists 422 only where there are parameters; any request can fail validation.
        "422": {"description": "Validation Error"},
    }
    if method.upper() not in SAFE_METHODS:
        errors["403"] = _error("Missing or wrong CSRF token, or a foreign Origin")
    if "{" in path:
        errors["404"] = _error("Nothing of yours by that id")
    return errors


def _full_schema(app: FastAPI) -> dict[str, Any]:
    return get_openapi(title=app.title, version=app.version, summary=app.summary, routes=app.routes)


def document_api(app: FastAPI) -> None:
    """Replace the app's schema with the API's own, errors included."""

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            schema = _full_schema(app)
            paths = {path: ops for path, ops in schema["paths"].items() if _documented(path)}
            for path, operations in paths.items():
                for method, operation in operations.items():
                    responses = operation.setdefault("responses", {})
                    for status, response in _errors(path, method).items():
                        responses.setdefault(status, response)
            schema["paths"] = paths
            app.openapi_schema = schema
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]


def route_table(app: FastAPI) -> list[tuple[str, str]]:
    """Every (METHOD, path) the app serves, pages included (the schema itself leaves pages out)."""
    return sorted(
        (method.upper(), path)
        for path, operations in _full_schema(app)["paths"].items()
        for method in operations
    )


@cache
def _methods_by_path(app: FastAPI) -> list[tuple[re.Pattern[str], frozenset[str]]]:
    return [
        (compile_path(path)[0], frozenset(method.upper() for method in operations))
        for path, operations in _full_schema(app)["paths"].items()
    ]


def allowed_methods(app: FastAPI, path: str) -> str:
    """Every method some route serves at `path`, for a 405's Allow header."""
    methods: set[str] = set()
    for pattern, served in _methods_by_path(app):
        if pattern.match(path):
            methods |= served
    return ", ".join(sorted(methods))
